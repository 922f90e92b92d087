"""``build_sitemaps --via celery`` in this process, with Celery's own eager mode
(each task runs where it is sent) and its in-memory broker: the adapter's
states and messages, without a worker. The real workers, broker and storage
are in tests/test_distributed_workers.py."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from celery import current_app
from django.core.files.storage import InMemoryStorage, storages
from django.core.management import CommandError, call_command
from django.test import override_settings
from factories import bulk_articles
from sitemap_xml import parse_index
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.distributed.celery_engine import TASK_NAME

pytestmark = pytest.mark.django_db
UPDATED = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
Sources = Callable[..., None]


class TenPerPage(ArticleSource):
    limit = 10


@pytest.fixture
def eager() -> Iterator[None]:
    conf = current_app.conf
    before = {key: conf[key] for key in ("task_always_eager", "broker_url")}
    conf.update(task_always_eager=True, broker_url="memory://")
    try:
        yield
    finally:
        conf.update(before)


@pytest.fixture
def storage(eager: None) -> Iterator[InMemoryStorage]:
    with override_settings(
        STORAGES={"sitemaps": {"BACKEND": "django.core.files.storage.InMemoryStorage"}},
        SITEMAPKIT_STORAGE="sitemaps",
    ):
        found = storages["sitemaps"]
        assert isinstance(found, InMemoryStorage)
        yield found


def test_the_app_registers_the_shard_task() -> None:
    assert TASK_NAME in current_app.tasks


def test_a_build_through_celery(sources: Sources, storage: InMemoryStorage) -> None:
    sources(TenPerPage)
    bulk_articles(25, updated_at=UPDATED)
    call_command("build_sitemaps", via="celery", verbosity=0)
    _, names = storage.listdir("")
    assert sorted(names) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap-articles-2.xml",
        "sitemap-articles-2.xml.gz",
        "sitemap-articles-3.xml",
        "sitemap-articles-3.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        "sitemapkit-manifest.json",
    ]


class Indexable(TenPerPage):
    noindex = "seo_noindex"


def test_the_workers_shards_leave_out_the_declared_noindex_rows(
    sources: Sources, storage: InMemoryStorage, tmp_path: Path
) -> None:
    """A worker compiles the section's plan itself: its shards are cut from, and list,
    the rows the coordinator's plan and a local build list."""
    sources(Indexable)
    rows = sorted(bulk_articles(25, updated_at=UPDATED), key=lambda row: row.pk)
    Article.objects.filter(pk__in=[rows[3].pk, rows[12].pk, rows[13].pk]).update(seo_noindex=True)
    call_command("build_sitemaps", via="celery", verbosity=0)
    call_command("build_sitemaps", output=str(tmp_path / "out"), verbosity=0)
    local = {path.name for path in (tmp_path / "out").iterdir()}
    assert sorted(storage.listdir("")[1]) == sorted(local)
    for name in sorted(local - {"sitemapkit-manifest.json"}):
        with storage.open(name) as found:
            assert found.read() == (tmp_path / "out" / name).read_bytes(), name
    # 22 rows: pages of 10, 10 and 2.
    with storage.open("sitemap-articles-3.xml") as page:
        assert page.read().count(b"<url>") == 2


def test_a_shard_that_raises_names_itself(sources: Sources, storage: InMemoryStorage) -> None:
    sources(TenPerPage)
    rows = sorted(bulk_articles(25, updated_at=UPDATED), key=lambda row: row.pk)
    Article.objects.filter(pk=rows[12].pk).update(slug=None)
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(CommandError) as raised:
        call_command("build_sitemaps", via="celery", verbosity=0)
    assert str(raised.value) == (
        f"The shard of section 'articles' from page 2 (rows from key ({rows[10].pk},)) failed on "
        "a worker of Celery: BuildError: Section 'articles' failed after 10 rows: InvalidEntry: "
        f"Skipped pk={rows[12].pk} of source 'articles': URL argument 'slug' (field 'slug') is "
        "None. Nothing was published: the files in storage 'sitemaps' are as they were."
    )
    assert files(storage, "") == []


def test_a_page_that_loses_its_newest_row_is_dated_later_by_the_coordinator(
    sources: Sources, storage: InMemoryStorage
) -> None:
    """The workers report each file's newest lastmod; the coordinator dates it (dates.py)."""
    sources(TenPerPage)
    rows = sorted(bulk_articles(25, updated_at=UPDATED), key=lambda row: row.pk)
    Article.objects.filter(pk=rows[19].pk).update(updated_at=UPDATED + dt.timedelta(days=1))
    call_command("build_sitemaps", via="celery", verbosity=0)
    page = "https://www.example.com/sitemap-articles-2.xml"
    first = dict(parse_index(read(storage, "sitemap.xml")))
    assert first[page] == "2024-05-02T00:00:00+00:00"
    rows[19].delete()
    call_command("build_sitemaps", via="celery", verbosity=0)
    second = read(storage, "sitemap.xml")
    moved = dict(parse_index(second))[page]
    assert moved is not None
    assert moved > "2024-05-02T00:00:00+00:00"
    # The same rows again, and every shard rendered: the same bytes, the same dates.
    call_command("build_sitemaps", via="celery", verbosity=0, full=True)
    assert read(storage, "sitemap.xml") == second


def read(storage: InMemoryStorage, name: str) -> bytes:
    with storage.open(name, "rb") as opened:
        content: bytes = opened.read()
    return content


@pytest.mark.slow
def test_an_unreachable_broker_is_named(sources: Sources, storage: InMemoryStorage) -> None:
    sources(TenPerPage)
    bulk_articles(3, updated_at=UPDATED)
    current_app.conf.update(task_always_eager=False, broker_url="redis://127.0.0.1:9/0")
    with pytest.raises(CommandError) as raised:
        call_command("build_sitemaps", via="celery", verbosity=0)
    # The URI as Celery masks it: a password would show as **.
    assert str(raised.value) == (
        "Celery's broker redis://:**@127.0.0.1:9/0 cannot be reached (OperationalError: Error "
        "111 connecting to 127.0.0.1:9. Connection refused.): start it, or load the project's "
        "Celery app (CELERY_BROKER_URL) before build_sitemaps runs, as its __init__.py usually "
        "does. Nothing was published: the files in storage 'sitemaps' are as they were."
    )


def files(storage: InMemoryStorage, directory: str) -> list[str]:
    """Every file in ``directory`` and below it (empty directories are not files)."""
    folders, names = storage.listdir(directory)
    found = [directory + name for name in names]
    for folder in folders:
        found += files(storage, f"{directory}{folder}/")
    return found


@pytest.mark.usefixtures("robots_project")
@override_settings(
    SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT="User-agent: *\nDisallow: /*-draft\n"
)
def test_robots_txt_is_read_by_each_worker_as_the_coordinator_read_it(
    sources: Sources, storage: InMemoryStorage
) -> None:
    """Each job reads robots.txt afresh, and its fingerprint must be the coordinator's:
    the URLs it disallows are left out of the workers' files."""
    from sitemap_xml import parse_urlset
    from testapp import urls_robots

    sources(TenPerPage)
    rows = sorted(bulk_articles(25, updated_at=UPDATED), key=lambda row: row.pk)
    for n in (2, 11, 24):
        Article.objects.filter(pk=rows[n].pk).update(slug=f"a-draft-{n}")
    call_command("build_sitemaps", via="celery", verbosity=0)
    listed = []
    _, names = storage.listdir("")
    for name in sorted(name for name in names if name.startswith("sitemap-articles-")):
        if name.endswith(".xml"):
            with storage.open(name) as file:
                listed += [url.loc for url in parse_urlset(file.read())]
    slugs = Article.objects.order_by("pk").values_list("slug", flat=True)
    allowed = [
        f"https://www.example.com/articles/{slug}/" for slug in slugs if "-draft" not in slug
    ]
    assert len(allowed) == 22
    assert listed == allowed
    # The coordinator once, then each of the three jobs.
    assert len(urls_robots.asked) == 4
