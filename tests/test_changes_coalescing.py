"""coalescing.py: one pending record per row, and past ``MOST_PENDING`` one of every row,
and a refresh after them renders exactly what a full build does; the index served from
the database stays the one the whole reading gives."""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from commands import outcome
from django.db import connection, connections, transaction
from django.test import Client, override_settings
from factories import bulk_articles
from sitemap_xml import fetch
from testapp.models import Article
from testapp.sitemaps import ArticleSource
from versioned_index import whole

from django_sitemapkit import changed
from django_sitemapkit.build.refresh import refresh_changes, refresh_sites, settings_options
from django_sitemapkit.build.touched import Touched
from django_sitemapkit.changes import records
from django_sitemapkit.changes.coalescing import MOST_PENDING
from django_sitemapkit.models import Change

pytestmark = pytest.mark.django_db(transaction=True)
EARLIER = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
ARTICLE = "testapp.article"


class ByTitle(ArticleSource):
    """Ordered by a column: a new title moves a row between shards."""

    name = "by-title"
    ordering = ("title",)
    limit = 10


class TenPerPage(ArticleSource):
    limit = 10


@pytest.fixture
def project(sources: Callable[..., None], out: Path) -> Iterator[list[Article]]:
    """Thirty articles titled in their order ("aa", "ab", ...): three shards of each
    section, built once, the changes recorded from now on."""
    sources(TenPerPage, ByTitle)
    bulk_articles(30, updated_at=EARLIER)
    for number, pk in enumerate(Article.objects.order_by("pk").values_list("pk", flat=True)):
        Article.objects.filter(pk=pk).update(title=chr(97 + number // 26) + chr(97 + number % 26))
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(out), SITEMAPKIT_CHANGES="record"):
        assert outcome("build_sitemaps")[2] == 0
        yield list(Article.objects.order_by("pk"))


def listed(directory: Path) -> dict[str, list[bytes]]:
    """Each section's ``<url>`` elements, in the order its files list them: a refresh
    keeps the shards' cuts where a full build makes its own, so the files may cut the
    same list elsewhere."""
    found: dict[str, list[bytes]] = {}
    for path in sorted(directory.glob("sitemap-*.xml"), key=lambda p: (len(p.name), p.name)):
        section = path.name.removeprefix("sitemap-").rsplit("-", 1)[0]
        found.setdefault(section, []).extend(re.findall(rb"<url>.*?</url>", path.read_bytes()))
    return found


def full_build(tmp_path: Path) -> dict[str, list[bytes]]:
    assert outcome("build_sitemaps", output=str(tmp_path / "full"))[2] == 0
    return listed(tmp_path / "full")


def test_saves_of_one_row_leave_one_record_of_them_all(project: list[Article]) -> None:
    article = project[4]
    before = records.version()
    for number in range(50):
        article.slug = f"saved-{number}"
        article.save()
    (record,) = records.pending(100).changes
    assert (record.model, record.row, record.befores, record.saves) == (ARTICLE, article.pk, (), 50)
    # The version still moved with each committed save.
    assert records.version() == before + 50


def test_rows_past_the_bound_are_one_record_of_every_row(project: list[Article]) -> None:
    bulk_articles(MOST_PENDING + 10, updated_at=EARLIER)
    rows = list(Article.objects.order_by("pk")[: MOST_PENDING + 10])
    # A bulk change of more rows than the bound: one record.
    assert changed(Article.objects.all()) == MOST_PENDING + 40
    assert [c.row for c in records.pending(2 * MOST_PENDING).changes] == [None]
    Change.objects.all().delete()
    assert changed(Article.objects.filter(pk__in=[r.pk for r in rows[:MOST_PENDING]])) == 1_000
    for article in rows[MOST_PENDING:]:
        article.slug += "-saved"
        article.save()
    found = records.pending(2 * MOST_PENDING).changes
    # The first save past the bound wrote the record of every row, the nine after it
    # joined it.
    assert len(found) == MOST_PENDING + 1
    assert [(c.row, c.saves) for c in found[-1:]] == [(None, 10)]


def test_a_refresh_after_coalesced_records_renders_what_a_full_build_does(
    project: list[Article], out: Path, tmp_path: Path
) -> None:
    moved, edited = project[5], project[12]
    # A row moved twice between refreshes: from the first shard to the second, then the
    # third; both places it left are rendered again.
    moved.title = "bm"
    moved.save()
    moved.title = "zz"
    moved.save()
    for number in range(5):
        edited.slug = f"edited-{number}"
        edited.save()
    gone = Article.objects.create(slug="gone", title="ba", updated_at=EARLIER)
    gone.delete()
    assert len(records.pending(100).ids) == 3
    assert outcome("build_sitemaps", changed=True)[1:] == ("", 0)
    assert listed(out) == full_build(tmp_path)


def test_a_save_during_a_refresh_is_rendered_by_the_next(
    project: list[Article], out: Path, tmp_path: Path
) -> None:
    moved = project[5]
    moved.title = "bm"
    moved.save()
    found = records.pending(100)
    refresh_sites(Touched(found), settings_options(), None)
    # Saved after the refresh read its records and rendered, before it marks them: the
    # record it read is taken, and written again with both places the row left.
    moved.title = "zz"
    moved.save()
    records.applied(found.ids)
    (record,) = records.pending(100).changes
    assert record.befores == ({"title": "af"}, {"title": "bm"})
    assert refresh_changes().records == 1
    assert listed(out) == full_build(tmp_path)


def test_the_index_after_coalesced_records_is_the_whole_readings(project: list[Article]) -> None:
    client = Client()
    with override_settings(SITEMAPKIT_SERVE="database"):
        assert fetch(client, "/sitemap.xml")[0] == 200
        moved = project[5]
        for title in ("bm", "zz", "ab"):
            moved.title = title
            moved.save()
            status, body, _ = fetch(client, "/sitemap.xml")
            assert (status, body) == (200, whole(client))
        assert len(records.pending(100).ids) == 1


def done_while_a_save_holds(article: Article, call: Callable[[], object]) -> bool:
    """Whether ``call()``, on a connection of its own, finished while a transaction that
    took ``article``'s pending record (by saving it) was still open."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite has one writer: no transaction waits on another's record")
    done = threading.Event()

    def other() -> None:
        try:
            call()
            done.set()
        finally:
            connections.close_all()

    with transaction.atomic():
        changed(article)  # takes the record, and holds it until the commit
        thread = threading.Thread(target=other)
        thread.start()
        finished = done.wait(timeout=20)
    thread.join()
    return finished


def test_a_record_another_open_transaction_is_taking_is_left_to_it(
    project: list[Article],
) -> None:
    article = project[4]
    changed(article)

    def save() -> None:
        with transaction.atomic():
            changed(article)

    # Neither waits for the other: the second writes its change beside the record.
    assert done_while_a_save_holds(article, save)
    assert sorted(c.saves for c in records.pending(10).changes) == [1, 2]
    assert {c.row for c in records.pending(10).changes} == {article.pk}


def test_a_refresh_marking_its_records_waits_for_no_save_taking_one(
    project: list[Article],
) -> None:
    article = project[4]
    changed(article)
    pending = records.pending(10).ids
    assert done_while_a_save_holds(article, lambda: records.applied(pending))
    # The save's record stands for the change the refresh read, and is still pending.
    assert [(c.row, c.saves) for c in records.pending(10).changes] == [(article.pk, 2)]
