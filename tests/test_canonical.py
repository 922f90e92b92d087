"""canonical.py: a row whose canonical URL is set and not its own location is not listed;
in SQL where the location is a URL template of ``<int:>`` or ``<slug:>`` columns, else
row by row, skipped and logged."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from factories import bulk_articles
from plans import entries_of
from sitemap_xml import fetch, parse_index, parse_urlset
from testapp.models import Article

from django_sitemapkit import SitemapSource
from django_sitemapkit.names import MANIFEST_FILENAME
from django_sitemapkit.sources.plan import compile_plan

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
Sources = Callable[..., None]


class ById(SitemapSource):
    """Located by ``<int:pk>``: the canonical is compared in SQL."""

    name = "articles"
    queryset = Article.objects.all()
    url_name = "article-by-pk"
    url_kwargs = {"pk": "pk"}
    canonical: ClassVar[str | None] = "canonical_url"
    limit = 3


class BySlug(ById):
    """Located by ``<slug:category>``, filled from a text column: in SQL too."""

    url_name = "category-detail"
    url_kwargs = {"category": "slug"}


class BySlugPerRow(BySlug):
    """The same locations from the project's own ``location()``: compared per row."""

    def location(self, row: Any) -> str:
        return reverse("category-detail", kwargs={"category": row["slug"]})


class ByStr(ById):
    """Located by ``<str:slug>``, which reverse() percent-encodes: compared per row."""

    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}


def articles(canonicals: list[str | None]) -> list[Article]:
    """One article per canonical value, in primary key order; ``{own}``, ``{pk}`` and
    ``{slug}`` in a value stand for the article's URL by id, its key and its slug."""
    rows = sorted(bulk_articles(len(canonicals)), key=lambda row: row.pk)
    for row, value in zip(rows, canonicals, strict=True):
        if value is not None:
            value = value.format(own=f"{SITE}/by-id/{row.pk}/", pk=row.pk, slug=row.slug)
        Article.objects.filter(pk=row.pk).update(canonical_url=value)
        row.canonical_url = value
    return rows


CANONICALS = [
    None,  # no canonical: listed
    "",  # empty: listed
    "{own}",  # itself, absolute: listed
    "/by-id/{pk}/",  # itself, as a path: listed
    "https://www.example.com/by-id/{pk}/?page=1",  # another URL
    "/by-id/{pk}",  # another path (no slash at the end)
    "https://elsewhere.example/by-id/{pk}/",  # the same path on another host
    "http://www.example.com/by-id/{pk}/",  # another scheme
    "/articles/other/",  # another page of the site
]
LISTED = (0, 1, 2, 3)


def test_rows_canonical_elsewhere_are_not_listed_and_sql_leaves_them_out(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    rows = articles(CANONICALS)
    sources(ById)
    assert compile_plan(ById()).listing is not None
    pages = [parse_urlset(fetch(client, f"/sitemap-articles-{n}.xml")[1]) for n in (1, 2)]
    assert [[url.loc for url in page] for page in pages] == [
        [f"{SITE}/by-id/{rows[i].pk}/" for i in LISTED[:3]],
        [f"{SITE}/by-id/{rows[i].pk}/" for i in LISTED[3:]],
    ]
    assert [loc for loc, _ in parse_index(fetch(client, "/sitemap.xml")[1])] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-2.xml",
    ]
    # Left out by the query: no row was read, so none was skipped or logged.
    assert caplog.records == []


def page_queries(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert fetch(client, path)[0] == 200
    return [query["sql"] for query in queries.captured_queries]


def test_the_sql_condition_costs_no_query(client: Client, sources: Sources) -> None:
    articles(CANONICALS)

    class Plain(ById):
        canonical = None

    sources(Plain)
    plain = page_queries(client, "/sitemap-articles-2.xml")
    sources(ById)
    declared = page_queries(client, "/sitemap-articles-2.xml")
    assert len(declared) == len(plain)
    column = connection.ops.quote_name("canonical_url")
    assert [sql for sql in declared if column not in sql] == []


SLUGS = ["plain", "a b", "x.y", "dash-and_under", "ü", "UPPER", "-", "tab\t", "50%"]


@pytest.mark.parametrize("form", ["absolute", "path", "elsewhere"])
def test_the_sql_condition_keeps_exactly_the_rows_the_written_locations_keep(
    sources: Sources, form: str, caplog: pytest.LogCaptureFixture
) -> None:
    rows = sorted(bulk_articles(len(SLUGS) * 2), key=lambda row: row.pk)
    for position, row in enumerate(rows):
        slug = SLUGS[position % len(SLUGS)]
        own = f"/c/{slug}/" if form == "path" else f"{SITE}/c/{slug}/"
        # Every other row points at its own URL, the others at their neighbour's.
        target = own if position % 2 == 0 or form == "elsewhere" else own.replace("/c/", "/c/x")
        if form == "elsewhere":
            target = target.replace("www.example.com", "example.org")
        Article.objects.filter(pk=row.pk).update(slug=slug, canonical_url=target)
    assert compile_plan(BySlug()).listing.canonical_rows is not None  # type: ignore[union-attr]
    assert compile_plan(BySlugPerRow()).listing.canonical_rows is None  # type: ignore[union-attr]
    in_sql = entries_of(BySlug())
    per_row = entries_of(BySlugPerRow())
    assert in_sql == per_row
    # Slugs the converter refuses ("a b", "x.y", "ü", "tab", "50%") never make a URL.
    listed = {"plain", "dash-and_under", "UPPER", "-"}
    assert {entry.loc for entry in in_sql} == (
        set() if form == "elsewhere" else {f"{SITE}/c/{slug}/" for slug in listed}
    )


def test_per_row_a_row_canonical_elsewhere_is_skipped_and_logged_even_in_strict_mode(
    client: Client, sources: Sources, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rows = articles(["{own}", "/articles/{slug}/", None, "/articles/other/", *[None] * 3])
    sources(ByStr)
    assert compile_plan(ByStr()).listing.canonical_rows is None  # type: ignore[union-attr]
    caplog.set_level(logging.WARNING, "django_sitemapkit")
    with override_settings(SITEMAPKIT_STRICT=True):
        pages = [parse_urlset(fetch(client, f"/sitemap-articles-{n}.xml")[1]) for n in (1, 2, 3)]
    # Pages keep their rows (three each); a row kept out makes its page shorter.
    assert [[url.loc for url in page] for page in pages] == [
        [f"{SITE}/articles/{rows[i].slug}/" for i in (1, 2)],
        [f"{SITE}/articles/{rows[i].slug}/" for i in (4, 5)],
        [f"{SITE}/articles/{rows[6].slug}/"],
    ]
    assert [record.getMessage() for record in caplog.records] == [
        f"Skipped pk={rows[0].pk} of source 'articles': its canonical URL "
        f"'{SITE}/by-id/{rows[0].pk}/' is not its own location.",
        f"Skipped pk={rows[3].pk} of source 'articles': its canonical URL "
        "'/articles/other/' is not its own location.",
    ]
    call_command("build_sitemaps", output=str(tmp_path / "out"), verbosity=0)
    for number, page in enumerate(pages, start=1):
        built = (tmp_path / "out" / f"sitemap-articles-{number}.xml").read_bytes()
        assert parse_urlset(built) == page


@pytest.mark.urls("testapp.urls_html")
@pytest.mark.parametrize("source", [ById, ByStr], ids=["sql", "per-row"])
def test_the_html_sitemap_and_the_built_files_are_the_served_pages(
    client: Client, sources: Sources, tmp_path: Path, source: type[ById]
) -> None:
    rows = articles(CANONICALS)
    sources(source)
    listed = [f"{SITE}/by-id/{rows[i].pk}/" for i in LISTED]
    if source is ByStr:
        # Only the empty ones are the row's own: its location is by slug.
        listed = [f"{SITE}/articles/{rows[i].slug}/" for i in (0, 1)]
    html = fetch(client, "/sitemap-articles-1.html")[1].decode()
    call_command("build_sitemaps", output=str(tmp_path / "out"), verbosity=0)
    found = []
    for path in sorted((tmp_path / "out").glob("sitemap-articles-*.xml")):
        served = fetch(client, f"/{path.name}")[1]
        assert path.read_bytes() == served
        found += [url.loc for url in parse_urlset(served)]
    assert found == listed
    # The page for visitors (1,000 links) lists them all, site-relative.
    assert re.findall(r'<li><a href="([^"]*)">', html) == [loc.removeprefix(SITE) for loc in listed]
    assert MANIFEST_FILENAME in {path.name for path in (tmp_path / "out").iterdir()}


LANGUAGES = [("en", "English"), ("fr", "French")]


@override_settings(
    ROOT_URLCONF="testapp.urls_i18n", LANGUAGES=LANGUAGES, LANGUAGE_CODE="en", USE_I18N=True
)
@pytest.mark.parametrize("source", ["sql", "per-row"])
def test_an_i18n_row_keeps_any_of_its_languages_urls_as_its_canonical(
    sources: Sources, source: str
) -> None:
    class InLanguages(ById):
        i18n = True
        alternates = True
        limit = 10

    class PerRow(InLanguages):
        def location(self, row: Any) -> str:
            return reverse("article-by-pk", kwargs={"pk": row["pk"]})

    chosen = InLanguages if source == "sql" else PerRow
    rows = sorted(bulk_articles(4), key=lambda row: row.pk)
    for row, canonical in zip(
        rows, ["/fr/by-id/{pk}/", f"{SITE}/en/by-id/{{pk}}/", "/de/by-id/{pk}/", None], strict=True
    ):
        value = None if canonical is None else canonical.format(pk=row.pk)
        Article.objects.filter(pk=row.pk).update(canonical_url=value)
    plan = compile_plan(chosen())
    assert (plan.listing.canonical_rows is not None) is (source == "sql")  # type: ignore[union-attr]
    entries = entries_of(chosen())
    assert [entry.loc for entry in entries] == [
        f"{SITE}/{language}/by-id/{rows[i].pk}/" for i in (0, 1, 3) for language in ("en", "fr")
    ]


def test_per_row_a_page_with_no_row_of_its_own_is_a_404_served_and_left_out_built(
    client: Client, sources: Sources, tmp_path: Path
) -> None:
    """The pages are cut by rows before any row is compared: a page whose every row is
    canonical elsewhere is listed by the served index and answered with 404 (as a page
    of invalid rows is), and the build writes no file for it."""
    articles([None, None, None, "/x/", "/y/", "/z/", None])
    sources(ByStr)
    index = [loc for loc, _ in parse_index(fetch(client, "/sitemap.xml")[1])]
    assert index == [f"{SITE}/sitemap-articles-{n}.xml" for n in (1, 2, 3)]
    assert [fetch(client, f"/sitemap-articles-{n}.xml")[0] for n in (1, 2, 3)] == [200, 404, 200]
    call_command("build_sitemaps", output=str(tmp_path / "out"), verbosity=0)
    built = [loc for loc, _ in parse_index((tmp_path / "out" / "sitemap.xml").read_bytes())]
    assert built == [f"{SITE}/sitemap-articles-{n}.xml" for n in (1, 3)]
