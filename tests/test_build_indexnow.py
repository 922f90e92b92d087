"""notify.py through ``build_sitemaps``: after a publish, the URLs it added, changed or
removed go to an IndexNow endpoint on 127.0.0.1, and a failing endpoint changes
nothing that was published."""

from __future__ import annotations

import _thread
import datetime as dt
import fcntl
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connections
from django.test import override_settings
from factories import bulk_articles
from indexnow_endpoint import KEY, Endpoint, Scripted, Tarpit, stalling
from sitemap_xml import parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
LATER = dt.datetime(2025, 1, 2, tzinfo=dt.timezone.utc)
Sources = Callable[..., None]


class TenPerPage(ArticleSource):
    limit = 10


def build(output: Path, **options: Any) -> str:
    stdout = io.StringIO()
    call_command("build_sitemaps", output=str(output), stdout=stdout, **options)
    return stdout.getvalue()


def sent(endpoint: Endpoint) -> list[list[str]]:
    return [request.json["urlList"] for request in endpoint.received]


def loc(article: Article) -> str:
    return f"{SITE}/articles/{article.slug}/"


def test_a_build_sends_what_it_added_changed_and_removed(
    sources: Sources, endpoint: Endpoint, tmp_path: Path
) -> None:
    sources(TenPerPage)
    rows = sorted(
        bulk_articles(30, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)),
        key=lambda row: row.pk,
    )
    out = tmp_path / "out"
    first = build(out)
    assert first.splitlines()[-1] == (
        "IndexNow: nothing sent, as there was no earlier set built with these settings to "
        "compare with (the next build sends what it changes)."
    )
    assert endpoint.received == []
    Article.objects.filter(pk__in=[rows[3].pk, rows[17].pk]).update(updated_at=LATER)
    Article.objects.filter(pk=rows[25].pk).delete()
    (added,) = bulk_articles(1, updated_at=LATER)
    second = build(out)
    assert sent(endpoint) == [sorted([loc(rows[3]), loc(rows[17]), loc(rows[25]), loc(added)])]
    request = endpoint.received[0].json
    assert (request["host"], request["key"], request["keyLocation"]) == (
        "www.example.com",
        KEY,
        f"{SITE}/{KEY}.txt",
    )
    assert second.splitlines()[-1] == (
        f"IndexNow: 4 URLs sent to {endpoint.url} in 1 request, 4 accepted."
    )
    # Nothing changed: nothing published, nothing sent again.
    build(out)
    assert len(endpoint.received) == 1


def test_a_failing_endpoint_leaves_the_set_published_and_the_urls_pending(
    sources: Sources, endpoint: Endpoint, tmp_path: Path
) -> None:
    sources(TenPerPage)
    bulk_articles(12, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
    out = tmp_path / "out"
    build(out)
    (added,) = bulk_articles(1, updated_at=LATER)
    endpoint.always = Scripted(503, {"Retry-After": "0"})
    output = build(out)
    # Published all the same: the new URL is in the set.
    assert loc(added) in [
        url.loc for url in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())
    ]
    assert sent(endpoint) == [[loc(added)]] * 4  # every attempt, then left for later
    assert output.splitlines()[-1] == (
        f"IndexNow: 1 URL sent to {endpoint.url} in 4 requests, 0 accepted. "
        "1 URL left pending for the next build."
    )
    record = json.loads((tmp_path / ".out.builds" / "sitemapkit-indexnow.json").read_bytes())
    assert list(record["pending"]) == [loc(added)]
    # The next build that publishes sends them, once the endpoint answers.
    endpoint.always = None
    Article.objects.filter(pk=added.pk).update(title="a change its lastmod does not show")
    (later,) = bulk_articles(1, updated_at=LATER)
    build(out)
    assert sent(endpoint)[4:] == [sorted([loc(added), loc(later)])]


def test_no_indexnow_sends_nothing(sources: Sources, endpoint: Endpoint, tmp_path: Path) -> None:
    sources(TenPerPage)
    bulk_articles(5, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
    out = tmp_path / "out"
    build(out)
    bulk_articles(1, updated_at=LATER)
    output = build(out, indexnow=False)
    assert endpoint.received == []
    assert "IndexNow" not in output


def lock_is_free(output: Path) -> bool:
    """Whether a build could take the build lock of ``output`` now."""
    with open(output.parent / f".{output.name}.builds" / ".lock", "a") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        return True


@pytest.mark.slow
def test_an_endpoint_that_stalls_holds_no_lock_and_ends_by_the_deadline(
    sources: Sources, tmp_path: Path
) -> None:
    sources(TenPerPage)
    bulk_articles(12, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
    out = tmp_path / "out"
    build(out)
    (added,) = bulk_articles(1, updated_at=LATER)
    free: list[bool] = []
    # 200 OK, then a header byte every 0.2 seconds: no read waits a second.
    tarpit = Tarpit(on_connection=lambda: free.append(lock_is_free(out)))
    with (
        stalling(tarpit),
        override_settings(
            SITEMAPKIT_INDEXNOW_KEY=KEY,
            SITEMAPKIT_INDEXNOW_ENDPOINT=tarpit.url,
            SITEMAPKIT_INDEXNOW_TIMEOUT=1,
            SITEMAPKIT_INDEXNOW_DEADLINE=1.5,
        ),
    ):
        output = build(out)
    # The set was published and the lock let go before the request; the request
    # was ended by its deadline, not by the tarpit.
    assert free == [True]
    assert tarpit.ends == ["client"]
    assert loc(added) in [
        url.loc for url in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())
    ]
    assert output.splitlines()[-1] == (
        f"IndexNow: 1 URL sent to {tarpit.url} in 1 request, 0 accepted. "
        "1 URL left pending for the next build."
    )
    assert record_of(out)["pending"] == {loc(added): LATER.isoformat()}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_build_runs_while_the_last_one_waits_out_a_429(
    sources: Sources, endpoint: Endpoint, tmp_path: Path
) -> None:
    sources(TenPerPage)
    bulk_articles(12, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
    out = tmp_path / "out"
    build(out)
    (first,) = bulk_articles(1, updated_at=LATER)
    meanwhile: list[str | Exception] = []
    # The first build uses no connection while it sends: the second, on another
    # thread, uses its one (as Django's live server does; an in-memory SQLite
    # database is one connection's alone).
    shared = connections["default"]

    def second_build() -> None:
        # On the endpoint's thread, while the first build waits for its answer.
        endpoint.on_request = None
        connections["default"] = shared
        try:
            (second,) = bulk_articles(1, updated_at=LATER)
            meanwhile.extend([loc(second), build(out)])
        except Exception as exc:
            meanwhile.append(exc)

    endpoint.on_request = second_build
    # The second build's post is refused (403); the first's is asked to wait a
    # second, then accepted.
    endpoint.then(Scripted(403), Scripted(429, {"Retry-After": "1"}))
    shared.inc_thread_sharing()
    try:
        output = build(out)
    finally:
        shared.dec_thread_sharing()
    # On a build's own thread, call_command() raises what the command fails with.
    assert [type(each) for each in meanwhile] == [str, str], meanwhile
    second, second_output = meanwhile
    assert isinstance(second_output, str)
    # The second build published its URL, and sent it with the first's, then
    # pending for the first's 429.
    assert second in [
        url.loc for url in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())
    ]
    assert second_output.splitlines()[-1] == (
        f"IndexNow: 2 URLs sent to {endpoint.url} in 1 request, 0 accepted. "
        "2 URLs left pending for the next build."
    )
    assert output.splitlines()[-1] == (
        f"IndexNow: 1 URL sent to {endpoint.url} in 2 requests, 1 accepted."
    )
    assert sent(endpoint) == [[loc(first)], sorted([loc(first), second]), [loc(first)]]
    # Neither lost what the other wrote in the record.
    assert record_of(out) == {
        "format": 1,
        "pending": {second: LATER.isoformat()},
        "accepted": {loc(first): LATER.isoformat()},
    }


def record_of(output: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(
        (output.parent / f".{output.name}.builds" / "sitemapkit-indexnow.json").read_bytes()
    )
    return record


def test_ctrl_c_while_sending_says_the_set_was_published(
    sources: Sources, endpoint: Endpoint, tmp_path: Path
) -> None:
    sources(TenPerPage)
    bulk_articles(12, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
    out = tmp_path / "out"
    build(out)
    (added,) = bulk_articles(1, updated_at=LATER)
    # Ctrl-C while the build waits for the endpoint's answer.
    endpoint.on_request = _thread.interrupt_main
    with pytest.raises(CommandError) as raised:
        build(out)
    assert (str(raised.value), raised.value.returncode) == (
        f"Interrupted while sending to IndexNow. The new set of {out} was published; the URLs "
        "not sent are left pending for the next build.",
        130,
    )
    assert loc(added) in [
        url.loc for url in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())
    ]
    assert record_of(out)["pending"] == {loc(added): LATER.isoformat()}
    assert lock_is_free(out)
