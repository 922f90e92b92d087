"""listing.py: a declared ``noindex`` and a ``lastmod`` expression, in the one query every
path reads: the views' pages and index, the HTML sitemap, and the build, incremental or
not."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    Max,
    OuterRef,
    Q,
    Subquery,
)
from django.db.models.functions import Coalesce, Greatest
from django.db.models.lookups import GreaterThan
from django.test import Client
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from sitemap_xml import fetch, parse_index, parse_urlset
from testapp.models import Article, Photo

from django_sitemapkit import SitemapSource
from django_sitemapkit.names import MANIFEST_FILENAME
from django_sitemapkit.sources.lastmods import clear_cache

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
UTC = dt.timezone.utc
Sources = Callable[..., None]
# Page 1 of each HTML and XML document, and the indexes.
PATHS = ("/sitemap.xml", "/sitemap-articles-1.xml", "/sitemap-articles-2.xml")
PATHS_HTML = ("/sitemap.html", "/sitemap-articles-1.html", "/sitemap-articles-2.html")


class Listed(SitemapSource):
    name = "articles"
    queryset = Article.objects.filter(published=True)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod: Any = "updated_at"
    limit = 3


class Filtered(Listed):
    """What a noindex source must list: the rows its project filtered out itself."""

    queryset = Article.objects.filter(published=True).exclude(seo_noindex=True)


NOINDEX: dict[str, Any] = {
    "field": "seo_noindex",
    "q": Q(seo_noindex=True),
    "expression": ExpressionWrapper(Q(seo_noindex=True), output_field=BooleanField()),
}
# By the key (the primary key: pages after the first are sought), or by offset
# (a nullable column is no key).
ORDERINGS = {"key": (), "offset": ("-updated_at",)}


def declaring(base: type[Listed], **attributes: Any) -> type[Listed]:
    return type(base.__name__, (base,), attributes)


def hour(position: int) -> dt.datetime:
    """The ``updated_at`` of the article at ``position`` (see ``articles()``)."""
    return dt.datetime(2024, 5, 1, tzinfo=UTC) + dt.timedelta(hours=position)


def articles(count: int) -> list[Article]:
    """``count`` articles, an hour apart, in primary key order."""
    created = bulk_articles(count)
    for position, article in enumerate(sorted(created, key=lambda row: row.pk)):
        Article.objects.filter(pk=article.pk).update(updated_at=hour(position))
    return sorted(Article.objects.all(), key=lambda row: row.pk)


def mark(rows: list[Article], noindex: dict[int, bool | None]) -> None:
    for position, value in noindex.items():
        Article.objects.filter(pk=rows[position].pk).update(seo_noindex=value)


def documents(client: Client, paths: tuple[str, ...]) -> dict[str, tuple[int, bytes]]:
    return {path: fetch(client, path)[:2] for path in paths}


def built(output: Path) -> dict[str, bytes]:
    return {
        path.name: path.read_bytes()
        for path in sorted(output.iterdir())
        if path.name != MANIFEST_FILENAME
    }


def re_rendered(before: dict[str, int], after: dict[str, int]) -> list[str]:
    """The pages of ``after`` that are not the very files (inodes) of ``before``."""
    return sorted(
        name
        for name in after
        if name.startswith("sitemap-articles") and after[name] != before.get(name)
    )


def build(output: Path, **options: Any) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0, **options)


@pytest.mark.urls("testapp.urls_html")
@pytest.mark.parametrize("ordering", ORDERINGS.values(), ids=ORDERINGS.keys())
@pytest.mark.parametrize("noindex", NOINDEX.values(), ids=NOINDEX.keys())
def test_noindex_rows_are_in_no_document_and_the_pages_are_cut_as_without_them(
    client: Client, sources: Sources, tmp_path: Path, noindex: Any, ordering: tuple[str, ...]
) -> None:
    rows = articles(11)
    # True keeps a row out; False and NULL (unset) list it.
    mark(rows, {1: True, 4: True, 5: True, 9: True, 2: False, 3: None})
    kept = [row for row in rows if row.pk not in {rows[i].pk for i in (1, 4, 5, 9)}]
    sources(declaring(Filtered, ordering=ordering))
    expected = documents(client, PATHS + PATHS_HTML)
    build(tmp_path / "filtered")

    sources(declaring(Listed, ordering=ordering, noindex=noindex))
    assert documents(client, PATHS + PATHS_HTML) == expected
    build(tmp_path / "declared")
    assert built(tmp_path / "declared") == built(tmp_path / "filtered")

    # Seven rows, three to a page, in the source's order, on the view and in the files.
    order = kept if not ordering else kept[::-1]
    slugs = [f"{SITE}/articles/{row.slug}/" for row in order]
    pages = [slugs[0:3], slugs[3:6], slugs[6:7]]
    index = parse_index(expected["/sitemap.xml"][1])
    assert [loc for loc, _ in index] == [f"{SITE}/sitemap-articles-{n}.xml" for n in (1, 2, 3)]
    for number, page in enumerate(pages, start=1):
        served = parse_urlset(fetch(client, f"/sitemap-articles-{number}.xml")[1])
        assert [url.loc for url in served] == page
        files = parse_urlset(
            (tmp_path / "declared" / f"sitemap-articles-{number}.xml").read_bytes()
        )
        assert [url.loc for url in files] == page
    assert fetch(client, "/sitemap-articles-4.xml")[0] == 404


def test_an_aggregate_noindex_is_each_row_s_own_and_groups_nothing(
    client: Client, sources: Sources, tmp_path: Path
) -> None:
    rows = articles(8)
    for position in (1, 1, 4, 4, 4, 6):
        Photo.objects.create(article=rows[position])
    # More than one photo: rows 1 and 4 are kept out; row 6, with one, is listed.
    sources(declaring(Listed, noindex=GreaterThan(Count("photos"), 1)))
    kept = [f"{SITE}/articles/{row.slug}/" for i, row in enumerate(rows) if i not in (1, 4)]
    pages = [parse_urlset(fetch(client, f"/sitemap-articles-{n}.xml")[1]) for n in (1, 2)]
    assert [url.loc for page in pages for url in page] == kept
    assert len(parse_index(fetch(client, "/sitemap.xml")[1])) == 2
    build(tmp_path / "out")
    files = [(tmp_path / "out" / f"sitemap-articles-{n}.xml").read_bytes() for n in (1, 2)]
    assert files == [fetch(client, f"/sitemap-articles-{n}.xml")[1] for n in (1, 2)]


def test_flipping_a_row_s_noindex_re_renders_its_shard_alone(
    sources: Sources, tmp_path: Path
) -> None:
    sources(declaring(Listed, limit=10, noindex="seo_noindex"))
    rows = articles(40)
    out = tmp_path / "out"
    build(out)
    before = {path.name: path.stat().st_ino for path in out.iterdir()}
    Article.objects.filter(pk=rows[15].pk).update(seo_noindex=True)
    build(out)
    after = {path.name: path.stat().st_ino for path in out.iterdir()}
    assert re_rendered(before, after) == ["sitemap-articles-2.xml", "sitemap-articles-2.xml.gz"]
    page = [url.loc for url in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())]
    assert page == [f"{SITE}/articles/{row.slug}/" for row in rows[10:20] if row != rows[15]]

    # A full build cuts the section afresh: page 2 now starts one row later.
    build(tmp_path / "full")
    full = [
        url.loc for url in parse_urlset((tmp_path / "full" / "sitemap-articles-2.xml").read_bytes())
    ]
    assert full == [f"{SITE}/articles/{row.slug}/" for row in rows[10:21] if row != rows[15]]


def article_queries(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        status, _, _ = fetch(client, path)
    assert status == 200
    return [query["sql"] for query in queries.captured_queries]


@pytest.mark.parametrize("path", ["/sitemap.xml", "/sitemap-articles-2.xml"])
def test_noindex_is_a_condition_of_every_query_and_costs_no_query(
    client: Client, sources: Sources, path: str
) -> None:
    rows = articles(10)
    mark(rows, {0: True, 5: True})
    sources(Filtered)
    filtered = article_queries(client, path)
    # The same query: its pages' lastmods are kept under it (lastmods.py).
    clear_cache()
    sources(declaring(Listed, noindex="seo_noindex"))
    declared = article_queries(client, path)
    # As many queries as a queryset the project filtered itself, each with the condition.
    assert len(declared) == len(filtered)
    # The column as the backend quotes it ("" on SQLite and PostgreSQL, `` on MySQL).
    column = connection.ops.quote_name("seo_noindex")
    assert [sql for sql in declared if column not in sql] == []


class NewerOfTwo(Listed):
    """The newer of the row's own date and its newest photo's (SQLite's two-argument
    MAX() is NULL where either is, hence the Coalesce)."""

    lastmod = Greatest("updated_at", Coalesce(Max("photos__updated_at"), "updated_at"))


class NewestPhoto(Listed):
    lastmod = Subquery(
        Photo.objects.filter(article=OuterRef("pk"))
        .order_by("-updated_at")
        .values("updated_at")[:1]
    )


def stamp(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat(timespec="seconds")


@pytest.mark.parametrize("source", [NewerOfTwo, NewestPhoto], ids=["greatest", "subquery"])
def test_a_lastmod_expression_is_each_row_s_and_each_page_s_newest(
    client: Client, sources: Sources, tmp_path: Path, source: type[Listed]
) -> None:
    rows = articles(7)
    photo = dt.datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    for position, hours in ((1, 0), (1, 5), (4, 2)):
        Photo.objects.create(article=rows[position], updated_at=photo + dt.timedelta(hours=hours))
    newest_photo = {
        rows[1].pk: photo + dt.timedelta(hours=5),
        rows[4].pk: photo + dt.timedelta(hours=2),
    }
    expected = [
        stamp(
            newest_photo.get(row.pk)
            if source is NewestPhoto
            else max(hour(position), newest_photo.get(row.pk, hour(position)))
        )
        for position, row in enumerate(rows)
    ]
    sources(source)
    pages = [parse_urlset(fetch(client, f"/sitemap-articles-{n}.xml")[1]) for n in (1, 2, 3)]
    assert [url.lastmod for page in pages for url in page] == expected
    newest = [max((s for s in expected[i : i + 3] if s), default=None) for i in (0, 3, 6)]
    assert parse_index(fetch(client, "/sitemap.xml")[1]) == [
        (f"{SITE}/sitemap-articles-{n}.xml", newest[n - 1]) for n in (1, 2, 3)
    ]
    out = tmp_path / "out"
    build(out)
    assert parse_index((out / "sitemap.xml").read_bytes()) == parse_index(
        fetch(client, "/sitemap.xml")[1]
    )

    # A related row's change moves its page's stats: that shard alone is rendered again.
    before = {path.name: path.stat().st_ino for path in out.iterdir()}
    Photo.objects.filter(article=rows[4]).update(updated_at=photo + dt.timedelta(days=1))
    build(out)
    after = {path.name: path.stat().st_ino for path in out.iterdir()}
    assert re_rendered(before, after) == ["sitemap-articles-2.xml", "sitemap-articles-2.xml.gz"]
    ((_, lastmod),) = [
        url[:2]
        for url in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())
        if url.loc.endswith(f"/{rows[4].slug}/")
    ]
    assert lastmod == stamp(photo + dt.timedelta(days=1))


@pytest.mark.parametrize("source", [NewerOfTwo, NewestPhoto], ids=["greatest", "subquery"])
def test_pages_read_by_offset_aggregate_a_lastmod_expression_too(
    client: Client, sources: Sources, source: type[Listed]
) -> None:
    """Without a key, the index numbers the rows in one query (lastmods.py): the
    expression is a column of it."""
    rows = articles(7)
    photo = dt.datetime(2025, 1, 1, tzinfo=UTC)
    Photo.objects.create(article=rows[1], updated_at=photo)
    sources(declaring(source, ordering=("-updated_at",)))
    # Newest first: rows 6, 5, 4 | 3, 2, 1 | 0.
    newest = [hour(6), photo, hour(0)] if source is NewerOfTwo else [None, photo, None]
    assert parse_index(fetch(client, "/sitemap.xml")[1]) == [
        (f"{SITE}/sitemap-articles-{n}.xml", stamp(newest[n - 1])) for n in (1, 2, 3)
    ]


def test_another_lastmod_expression_renders_again_a_page_whose_stats_it_keeps(
    sources: Sources, tmp_path: Path
) -> None:
    """A row's new lastmod that is not its page's newest changes none of the page's
    stats: the expression itself is part of the section's fingerprint."""
    rows = articles(6)
    older = hour(1) - dt.timedelta(minutes=30)
    Photo.objects.create(article=rows[1], updated_at=older)
    out = tmp_path / "out"
    # One class name, one lastmod path (the expression's alias): only the expressions differ.
    sources(declaring(Listed, lastmod=NewerOfTwo.lastmod))
    build(out)
    # The newest photo's date where there is one, else the row's own.
    sources(declaring(Listed, lastmod=Coalesce(Max("photos__updated_at"), "updated_at")))
    build(out)
    first = parse_urlset((out / "sitemap-articles-1.xml").read_bytes())
    assert [url.lastmod for url in first] == [
        stamp(hour(0)),
        stamp(older),
        stamp(hour(2)),
    ]
