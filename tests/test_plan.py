"""A plan is compiled once per request, and fixes what each page needs."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from factories import ArticleFactory, bulk_articles
from plans import entries_of
from sitemap_xml import parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.sources import plan as plans
from django_sitemapkit.sources.entries import RowFormat
from django_sitemapkit.sources.plan import compile_plan

pytestmark = pytest.mark.django_db

SITE = "https://www.example.com"


class ByRegex(ArticleSource):
    """A url_name of a re_path(): no URL template can be compiled for it."""

    name = "regex"
    url_name = "article-by-regex"


class Small(ArticleSource):
    limit = 3


def streamed(client: Client, path: str) -> bytes:
    response = client.get(path)
    assert response.status_code == 200
    return b"".join(response.streaming_content)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("page", "queries"), [(1, 2), (2, 3)])
def test_one_page_compiles_one_plan_and_its_rows_query_once(
    client: Client, sources: Any, monkeypatch: pytest.MonkeyPatch, page: int, queries: int
) -> None:
    sources(Small)
    bulk_articles(5)
    compiled: list[str] = []
    as_sql = SQLCompiler.as_sql

    def counted(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        # The rows' query: the page's columns, selected for the entries.
        if "slug" in self.query.values_select and not self.query.subquery:
            compiled.append(type(self).__name__)
        return as_sql(self, *args, **kwargs)

    made: list[str] = []
    compile_once = plans.compile_plan

    def recorded(source: Any, *args: Any) -> Any:
        made.append(type(source).name)
        return compile_once(source, *args)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    monkeypatch.setattr("django_sitemapkit.views.database.compile_plan", recorded)
    with CaptureQueriesContext(connection) as captured:
        body = streamed(client, f"/sitemap-articles-{page}.xml")
    assert len(parse_urlset(body)) == (3 if page == 1 else 2)
    assert made == ["articles"]
    assert compiled == ["SQLCompiler"]
    # The page's aggregate (after the seek of its first key, for page 2), then its rows.
    assert len(captured) == queries


@pytest.mark.slow
def test_a_url_name_without_a_template_reads_raw_rows_and_reverses_each(
    client: Client, sources: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources(ByRegex)
    bulk_articles(10_000)
    plan = compile_plan(ByRegex())
    assert plan.row_format is RowFormat.RAW
    compiled: list[int] = []
    as_sql = SQLCompiler.as_sql

    def counted(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        compiled.append(1)
        return as_sql(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    body = streamed(client, "/sitemap-regex-1.xml")
    locs = [url.loc for url in parse_urlset(body)]
    slugs = Article.objects.filter(published=True).order_by("pk").values_list("slug", flat=True)
    assert locs == [SITE + reverse("article-by-regex", kwargs={"slug": slug}) for slug in slugs]
    assert len(locs) == 10_000
    # The page's aggregate (outer and inner query) and its rows: never one per row.
    assert len(compiled) <= 3


def test_the_regex_route_writes_what_reverse_writes(sources: Any) -> None:
    for slug in ("plain", "a b", "tom&jerry", "ü-日本", "50%", "x?y"):
        ArticleFactory.create(slug=slug)
    ArticleFactory.create(slug="with/slash")

    class Reversing(ByRegex):
        def location(self, row: Any) -> str:
            return reverse("article-by-regex", kwargs={"slug": row["slug"]})

    assert entries_of(ByRegex()) == entries_of(Reversing())


def test_an_i18n_build_counts_rows_and_urls_apart(
    sources: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str], settings: Any
) -> None:
    from django.core.management import call_command

    settings.LANGUAGES = [("en", "English"), ("fr", "French"), ("de", "German")]

    class Languages(ArticleSource):
        name = "multi"
        i18n = True

    sources(Languages)
    bulk_articles(4)
    call_command("build_sitemaps", output=str(tmp_path))
    table = capsys.readouterr().out.splitlines()
    header = table.index(next(line for line in table if line.startswith("Section")))
    assert table[header].split() == [
        "Section",
        "Rows",
        "URLs",
        "Files",
        "Rendered",
        "Bytes",
        "Gzip",
        "bytes",
        "Skipped",
    ]
    assert table[header + 1].split()[:5] == ["multi", "4", "12", "1", "1/1"]
    assert table[header + 1].split()[7] == "0"


def test_plan_logs_nothing_for_a_valid_source(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="django_sitemapkit"):
        plan = compile_plan(ArticleSource())
    assert (plan.section, plan.page_size, plan.url_limit, plan.languages) == (
        "articles",
        50_000,
        50_000,
        (None,),
    )
    assert caplog.records == []


class ShopArticles(ArticleSource):
    name = "shop"


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="testapp.urls_i18n_subpath", LANGUAGE_CODE="en")
def test_the_sitemap_s_directory_is_read_in_language_code_like_the_urls() -> None:
    # A request in another language (LocaleMiddleware, Accept-Language) must
    # not move the directory to /fr/shop/ while the URLs stay under /en/shop/,
    # which would skip every row.
    ArticleFactory.create(slug="a")
    with translation.override("fr"):
        assert [entry.loc for entry in entries_of(ShopArticles())] == [
            "https://www.example.com/en/shop/a/"
        ]


@pytest.mark.parametrize(
    ("lastmod", "aggregated"),
    [
        ("updated_at", "updated_at"),
        ("published_on", "published_on"),
        ("updated_at__date", "updated_at__date"),
        # Not dates: their MAX() is no lastmod (and on PostgreSQL MAX() of a
        # boolean is an error). The rows still read them, and are skipped.
        ("title", None),
        ("published", None),
        ("pk", None),
        (None, None),
    ],
)
def test_only_a_lastmod_path_that_holds_dates_is_aggregated(
    lastmod: str | None, aggregated: str | None
) -> None:
    source = type("Dated", (ArticleSource,), {"lastmod": lastmod, "__module__": __name__})
    ArticleFactory.create(published_on=dt.date(2024, 3, 1))
    compiled = compile_plan(source())
    assert compiled.lastmod_path == aggregated
    stats = compiled.pager.section_stats()
    assert stats.rows == 1
    assert (stats.lastmod is None) == (aggregated is None)


class MisspeltChangefreq(ArticleSource):
    changefreq = "weeky"


class PriorityTooHigh(ArticleSource):
    priority = 2


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (
            MisspeltChangefreq,
            "a changefreq no sitemap can hold: changefreq 'weeky' is not one of always, "
            "hourly, daily, weekly, monthly, yearly, never",
        ),
        (PriorityTooHigh, "a priority no sitemap can hold: priority 2 is outside 0.0 to 1.0"),
    ],
)
def test_an_invalid_constant_is_refused_in_a_whole_sentence(
    source: type[ArticleSource], problem: str
) -> None:
    # The system checks say it first (E008, E009); this is the backstop without them,
    # raised in strict mode (otherwise the value is left out: tests/test_views.py).
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(ImproperlyConfigured) as raised:
        compile_plan(source())
    assert str(raised.value) == (
        f"Source 'articles' declares {problem}. Fix the class attribute (manage.py check "
        "names the fix)."
    )
