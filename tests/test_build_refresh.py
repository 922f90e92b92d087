"""refresh.py and touched.py through ``build_sitemaps --changed``: each committed change
reaches the files the views serve after one refresh, IndexNow is sent exactly the
URLs that changed, and the refresh reads only the shards the records touch."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from commands import outcome
from django.db import connection, transaction
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from indexnow_endpoint import Endpoint
from sitemap_xml import fetch, parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.directory import destination_for
from django_sitemapkit.build.refresh import Refreshed, refresh_changes
from django_sitemapkit.changes import records
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.hosts import default_site
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db(transaction=True)
SITE = "https://www.example.com"
EARLIER = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
LATER = dt.datetime(2025, 1, 2, tzinfo=dt.timezone.utc)
Sources = Callable[..., None]


class TenPerPage(ArticleSource):
    limit = 10


class ByTitle(ArticleSource):
    """Ordered by a column: a new title moves a row between shards."""

    name = "by-title"
    ordering = ("title",)
    limit = 10


@pytest.fixture
def project(sources: Sources, endpoint: Endpoint, out: Path) -> Iterator[Endpoint]:
    """Thirty articles in three shards of each section, built once and served from
    the files, with the changes recorded from now on."""
    sources(TenPerPage, ByTitle, PagesSource)
    bulk_articles(30, updated_at=EARLIER)
    for number, article in enumerate(Article.objects.order_by("pk")):
        # Titles in the order of the rows, two letters each: "aa", "ab", ...
        article.title = chr(97 + number // 26) + chr(97 + number % 26)
        Article.objects.filter(pk=article.pk).update(title=article.title)
    settings = override_settings(
        SITEMAPKIT_OUTPUT_DIR=str(out), SITEMAPKIT_SERVE="files", SITEMAPKIT_CHANGES="record"
    )
    with settings:
        assert outcome("build_sitemaps")[2] == 0
        yield endpoint


def served() -> dict[str, list[str]]:
    """Each page the views serve from the files, with the URLs it lists."""
    client = Client()
    status, index, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    pages = {}
    for loc, _ in parse_index(index):
        status, page, _ = fetch(client, loc.removeprefix(SITE))
        assert status == 200
        pages[loc.removeprefix(f"{SITE}/")] = [url.loc for url in parse_urlset(page)]
    return pages


def loc(slug: str) -> str:
    return f"{SITE}/articles/{slug}/"


def sent(endpoint: Endpoint) -> list[list[str]]:
    return [request.json["urlList"] for request in endpoint.received]


def changed(**options: object) -> tuple[str, str, int]:
    return outcome("build_sitemaps", changed=True, **options)


def sections(stdout: str) -> list[str]:
    """The lines of the sections a run printed (the progress lines of a build)."""
    return [line for line in stdout.splitlines() if " shard(s) rendered (" in line]


def rendered(stdout: str) -> list[str]:
    """Each section and how many of its shards a run rendered."""
    return [line.split(" (")[0].split(", ", 1)[1] for line in sections(stdout)]


def test_an_update_of_a_slug_reaches_the_served_files_and_indexnow(project: Endpoint) -> None:
    article = Article.objects.get(title="ab")
    old = article.slug
    article.slug = "renamed"
    article.save()
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    # One shard of each section read and rendered again; the static pages never.
    assert rendered(stdout) == [
        "1 of 3 shard(s) rendered",
        "1 of 3 shard(s) rendered",
        "0 of 1 shard(s) rendered",
    ]
    pages = served()
    assert loc("renamed") in pages["sitemap-articles-1.xml"]
    assert loc("renamed") in pages["sitemap-by-title-1.xml"]
    assert not any(loc(old) in urls for urls in pages.values())
    assert sent(project) == [sorted([loc(old), loc("renamed")])]
    assert records.pending(10).ids == []
    assert stdout.splitlines()[-1] == "Applied 1 change record(s)."


def urls(pages: dict[str, list[str]], section: str) -> list[list[str]]:
    """The URLs of each page of ``section``, in the order of its pages."""
    names = sorted((n for n in pages if n.startswith(f"sitemap-{section}-")), key=page_order)
    return [pages[name] for name in names]


def page_order(name: str) -> int:
    return int(name.rsplit("-", 1)[1].removesuffix(".xml"))


def test_an_insert_is_listed_and_sent(project: Endpoint) -> None:
    Article.objects.create(slug="new", title="zz", updated_at=LATER)
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    # The last shard of each section grew past ten rows: cut in two.
    assert rendered(stdout) == [
        "2 of 4 shard(s) rendered",
        "2 of 4 shard(s) rendered",
        "0 of 1 shard(s) rendered",
    ]
    pages = served()
    assert urls(pages, "articles")[3] == [loc("new")]
    assert urls(pages, "by-title")[3] == [loc("new")]
    assert sent(project) == [[loc("new")]]


def test_a_new_lastmod_is_written_and_sent(project: Endpoint) -> None:
    article = Article.objects.get(title="bb")
    article.updated_at = LATER
    article.save()
    assert changed()[1:] == ("", 0)
    entries = parse_urlset(fetch(Client(), "/sitemap-articles-3.xml")[1])
    assert [url.lastmod for url in entries if url.loc == loc(article.slug)] == [
        "2025-01-02T00:00:00+00:00"
    ]
    assert sent(project) == [[loc(article.slug)]]


def test_a_delete_is_no_longer_listed_and_sent(project: Endpoint) -> None:
    article = Article.objects.get(title="al")
    article.delete()
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    assert rendered(stdout)[:2] == ["1 of 3 shard(s) rendered", "1 of 3 shard(s) rendered"]
    pages = served()
    assert not any(loc(article.slug) in found for found in pages.values())
    assert [len(found) for found in urls(pages, "by-title")] == [10, 9, 10]
    assert sent(project) == [[loc(article.slug)]]


def test_a_row_that_moves_leaves_one_shard_and_joins_another(project: Endpoint) -> None:
    article = Article.objects.get(title="ab")
    article.title = "bz"
    article.updated_at = LATER
    article.save()
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    # Its page in the articles; the shard it left and the one it joined, cut in two.
    assert rendered(stdout)[:2] == ["1 of 3 shard(s) rendered", "3 of 4 shard(s) rendered"]
    pages = served()
    by_title = urls(pages, "by-title")
    assert [len(found) for found in by_title] == [9, 10, 10, 1]
    assert by_title[3] == [loc(article.slug)]
    assert sent(project) == [[loc(article.slug)]]


def test_a_rolled_back_change_records_nothing_and_the_refresh_has_nothing_to_do(
    project: Endpoint,
) -> None:
    def insert_then_fail() -> None:
        with transaction.atomic():
            Article.objects.create(slug="never", title="zz")
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError, match="rolled back"):
        insert_then_fail()
    assert changed() == ("Nothing to do: no change record is pending.\n", "", 0)
    assert refresh_changes() == Refreshed(0)
    assert project.received == []


def test_refresh_changes_applies_the_records_and_says_what_it_did(project: Endpoint) -> None:
    article = Article.objects.get(title="ab")
    article.slug = "renamed"
    article.save()
    assert refresh_changes() == Refreshed(1, published=("default",), rendered=2)
    assert loc("renamed") in served()["sitemap-articles-1.xml"]
    # Applied again (another refresh read the same records): the same bytes, nothing sent.
    Article.objects.filter(pk=article.pk).update(title="ab")
    records.write("default", [("testapp.article", article.pk, None)])
    assert refresh_changes() == Refreshed(1, published=(), rendered=2)
    assert len(project.received) == 1


def test_a_refresh_that_fails_leaves_the_records_pending(project: Endpoint, out: Path) -> None:
    article = Article.objects.get(title="ab")
    article.slug = "renamed"
    article.save()
    before = (out / MANIFEST_FILENAME).read_bytes()
    with destination_for(default_site(), str(out)).lock(), pytest.raises(BuildError) as raised:
        refresh_changes()
    assert str(raised.value) == (
        "The sitemaps of the site failed:\n"
        f"- 'default' ({SITE}): Another build_sitemaps is writing to {out}; wait for it to "
        "finish, then run this one again."
    )
    assert (out / MANIFEST_FILENAME).read_bytes() == before
    assert len(records.pending(10).ids) == 1
    assert refresh_changes() == Refreshed(1, published=("default",), rendered=2)


def test_without_built_files_the_records_are_applied_with_nothing_rendered(
    project: Endpoint,
) -> None:
    records.write("default", [("testapp.article", 1, None)])
    with override_settings(SITEMAPKIT_OUTPUT_DIR=None, SITEMAPKIT_STORAGE=None):
        assert refresh_changes() == Refreshed(1)
    assert records.pending(10).ids == []


def test_records_of_a_model_no_section_reads_are_applied_with_nothing_rendered(
    project: Endpoint, out: Path
) -> None:
    manifest = (out / MANIFEST_FILENAME).read_bytes()
    records.write("default", [("testapp.photo", 1, None)])
    assert changed() == (
        "No change record touches its sections: nothing to render.\nApplied 1 change record(s).\n",
        "",
        0,
    )
    assert (out / MANIFEST_FILENAME).read_bytes() == manifest
    assert records.pending(10).ids == []


def test_a_section_no_longer_declared_is_gone_after_one_refresh(
    project: Endpoint, sources: Sources, out: Path
) -> None:
    article = Article.objects.get(title="ab")
    article.delete()
    # The sections reading the records' model are removed before the refresh runs.
    sources(PagesSource)
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    assert rendered(stdout) == ["0 of 1 shard(s) rendered"]
    assert stdout.endswith("Applied 1 change record(s).\n")
    assert list(served()) == ["sitemap-pages-1.xml"]
    assert sorted(json.loads((out / MANIFEST_FILENAME).read_bytes())["sections"]) == ["pages"]
    assert records.pending(10).ids == []


def test_refresh_changes_removes_a_section_no_longer_declared(
    project: Endpoint, sources: Sources
) -> None:
    records.write("default", [("testapp.photo", 1, None)])
    sources(TenPerPage, PagesSource)
    assert refresh_changes() == Refreshed(1, published=("default",), rendered=0)
    assert sorted(served()) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-2.xml",
        "sitemap-articles-3.xml",
        "sitemap-pages-1.xml",
    ]


def test_a_record_of_every_row_renders_every_shard_of_the_sections_reading_it(
    project: Endpoint,
) -> None:
    Article.objects.filter(title="ac").update(slug="bulk")
    records.write("default", [("testapp.article", None, None)])
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    # A new slug changes no count: every shard of the sections reading the model.
    assert rendered(stdout) == [
        "3 of 3 shard(s) rendered",
        "3 of 3 shard(s) rendered",
        "0 of 1 shard(s) rendered",
    ]
    assert loc("bulk") in {url for page in urls(served(), "articles") for url in page}


def test_a_set_built_otherwise_is_built_again_whole(project: Endpoint, out: Path) -> None:
    (out / MANIFEST_FILENAME).unlink()
    Article.objects.create(slug="new", title="zz", updated_at=LATER)
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    assert rendered(stdout) == [
        "4 of 4 shard(s) rendered",
        "4 of 4 shard(s) rendered",
        "1 of 1 shard(s) rendered",
    ]
    assert urls(served(), "articles")[3] == [loc("new")]


def test_a_dry_run_says_which_shards_it_would_render(project: Endpoint, out: Path) -> None:
    article = Article.objects.get(title="ab")
    article.title = "bz"
    article.save()
    assert changed(dry_run=True) == (
        "1 change record(s) pending.\n"
        f"Dry run: nothing is written. A refresh of {out} would:\n"
        "  articles: render 1 of 3 shard(s): sitemap-articles-1.xml\n"
        "  by-title: render 3 of 4 shard(s): sitemap-by-title-1.xml; sitemap-by-title-3.xml; "
        "new files\n"
        "  pages: render 0 of 1 shard(s)\n"
        "A shard's files keep their bytes, modification time and ETag when they come out "
        "the same.\n",
        "",
        0,
    )
    assert len(records.pending(10).ids) == 1


@pytest.mark.parametrize(
    ("option", "why"),
    [
        ({"full": True}, "--full renders every shard, --changed only those the records touch"),
        (
            {"section": ["articles"]},
            "a refresh applies each record to every section it touches: a section left out "
            "would stay stale once the record is applied",
        ),
        (
            {"site": ["default"]},
            "a refresh applies each record to every site: a site left out would stay stale "
            "once the record is applied",
        ),
        (
            {"via": "celery"},
            "the records' shards are rendered in this process (few, as the change is)",
        ),
    ],
)
def test_options_that_make_no_sense_with_changed_are_refused(
    project: Endpoint, option: dict[str, object], why: str
) -> None:
    (name,) = option
    assert changed(**option) == (
        "",
        f"CommandError: --changed cannot be given with --{name}: {why}. Drop one.\n",
        1,
    )


def test_changed_without_records_being_written_says_so(project: Endpoint) -> None:
    with override_settings(SITEMAPKIT_CHANGES=None):
        assert changed() == (
            "",
            "CommandError: --changed renders what the change records name, and none is being "
            "written: SITEMAPKIT_CHANGES is None. Set it to 'record' (and run migrate), or run "
            "build_sitemaps without --changed.\n",
            1,
        )


def test_the_builds_other_options_apply_to_a_refresh(project: Endpoint, tmp_path: Path) -> None:
    article = Article.objects.get(title="ab")
    old = article.slug
    article.slug = "renamed"
    article.save()
    path = tmp_path / "report.json"
    stdout, stderr, code = changed(report=str(path), jobs=2, indexnow=False)
    assert (stderr, code) == ("", 0)
    assert stdout.splitlines()[-2:] == [
        f"Wrote the report to {path}.",
        "Applied 1 change record(s).",
    ]
    sections = json.loads(path.read_bytes())["sites"]["default"]["sections"]
    # A URL two sections list is one change, of the first page that lists it
    # (indexnow/compare.py).
    assert {name: section["counts"] for name, section in sections.items()} == {
        name: {"before": urls, "after": urls, "added": added, "removed": added, "changed": 0}
        for name, urls, added in [("articles", 30, 1), ("by-title", 30, 0), ("pages", 2, 0)]
    }
    listed = {"lastmod": EARLIER.isoformat()}
    assert sections["articles"]["removed"] == [{"url": loc(old), **listed}]
    assert sections["articles"]["added"] == [{"url": loc("renamed"), **listed}]
    assert loc("renamed") in served()["sitemap-by-title-1.xml"]
    assert project.received == []


class TwoPerPage(ArticleSource):
    limit = 2


class TwoByTitle(ArticleSource):
    ordering = ("title",)
    limit = 2


def refresh_queries(
    sources: Sources, source: type[ArticleSource], rows: int, out: Path
) -> list[str]:
    """The statements of a refresh after one changed row in a section of ``rows`` rows,
    two to a shard, each with its values left out."""
    sources(source)
    Article.objects.all().delete()
    bulk_articles(rows, updated_at=EARLIER)
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(out), SITEMAPKIT_CHANGES="record"):
        assert outcome("build_sitemaps")[2] == 0
        records.applied(records.pending(1000).ids)
        article = Article.objects.order_by("pk")[rows // 2 + 1]
        article.updated_at = LATER
        article.save()
        with CaptureQueriesContext(connection) as captured:
            assert refresh_changes().records == 1
    return [re.sub(r"'[^']*'|\b\d+\b|_django_curs_\w+", "?", query["sql"]) for query in captured]


def test_a_refresh_after_one_change_costs_the_same_at_5_and_50_shards(
    sources: Sources, tmp_path: Path
) -> None:
    small = refresh_queries(sources, TwoPerPage, 10, tmp_path / "small")
    large = refresh_queries(sources, TwoPerPage, 100, tmp_path / "large")
    # The same statements: the key of the row, the stats and rows of its shard, the
    # records read and deleted; none compares the section's other ranges.
    assert small == large
    assert not any("UNION" in query for query in large)


def test_a_section_ordered_by_text_costs_as_many_statements_at_5_and_50_shards(
    sources: Sources, tmp_path: Path
) -> None:
    small = refresh_queries(sources, TwoByTitle, 10, tmp_path / "small")
    large = refresh_queries(sources, TwoByTitle, 100, tmp_path / "large")
    # Where the database places the row (a collation by locale), its one query
    # names each low (64 a query): as many statements, none of the other ranges.
    assert len(small) == len(large)
    assert not any("UNION" in query for query in large)
