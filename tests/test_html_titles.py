"""Titles in the HTML sitemap for visitors: a queryset source's ``title`` field path
(sources/titles.py), a static page's URL name, and the path where there is none.
Read only by the pages for visitors: the XML's query and bytes stay the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.checks import Error
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from factories import ArticleFactory
from html_pages import Link, document, page_rows
from sitemap_xml import fetch
from testapp.contrib_sitemaps import SITEMAPS
from testapp.models import Category
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import compat
from django_sitemapkit.checks.sources.declarations import check_kinds
from django_sitemapkit.checks.sources.values import check_field_paths
from django_sitemapkit.sources.declaration import StaticPage
from django_sitemapkit.sources.titles import as_words, static_title

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_html")]
Sources = Callable[..., None]


class Titled(ArticleSource):
    title = "category__name"


class TitledInstances(ArticleSource):
    title = "title"
    use_instances = True

    def changefreq(self, row: Any) -> str:  # type: ignore[override]
        return "daily"


def texts(client: Client, path: str) -> list[str]:
    return [row.link.text for row in page_rows(document(fetch(client, path)[1]))]


def test_a_title_path_across_a_relation_and_a_null_one(client: Client, sources: Sources) -> None:
    sources(Titled)
    shoes = Category.objects.create(slug="shoes", name="Shoes & boots")
    ArticleFactory.create(slug="a", category=shoes)
    ArticleFactory.create(slug="b", category=None)
    assert texts(client, "/sitemap-articles-1.html") == ["Shoes & boots", "/articles/b/"]


def test_titles_of_rows_handed_over_as_instances(client: Client, sources: Sources) -> None:
    sources(TitledInstances)
    ArticleFactory.create(title="First")
    assert texts(client, "/sitemap-articles-1.html") == ["First"]


def test_the_xml_neither_reads_nor_writes_the_title(client: Client, sources: Sources) -> None:
    ArticleFactory.create_batch(3)
    sources(ArticleSource)
    plain = fetch(client, "/sitemap-articles-1.xml")[1]
    sources(Titled)
    with CaptureQueriesContext(connection) as queries:
        titled = fetch(client, "/sitemap-articles-1.xml")[1]
    assert titled == plain
    assert not any("name" in query["sql"] for query in queries.captured_queries)
    with CaptureQueriesContext(connection) as queries:
        fetch(client, "/sitemap-articles-1.html")
    column = f"{connection.ops.quote_name('testapp_category')}.{connection.ops.quote_name('name')}"
    assert any(column in query["sql"] for query in queries.captured_queries)


def test_static_pages_are_titled_by_their_url_name(client: Client, sources: Sources) -> None:
    sources(PagesSource)
    assert texts(client, "/sitemap-pages-1.html") == ["Home", "About"]
    assert static_title(StaticPage.from_declaration("/legal/")) is None
    assert static_title(StaticPage.from_declaration(("shop:gift-cards", {}))) == "Gift cards"
    assert as_words("blog_posts") == "Blog posts"


@pytest.mark.urls("testapp.urls_compat_register")
def test_a_drop_in_class_shows_paths_on_its_own_pages(client: Client, sources: Sources) -> None:
    sources()
    compat.register({"static": SITEMAPS["static"]})
    page = document(fetch(client, "/sitemap-static-1.html")[1])
    assert [row.link for row in page_rows(page)][:1] == [Link("/", "/")]


class Translated(ArticleSource):
    name = "translated"
    title = "title"
    i18n = True
    languages = ["en", "fr"]


@pytest.mark.urls("testapp.urls_i18n")
@override_settings(LANGUAGES=[("en", "English"), ("fr", "French")], LANGUAGE_CODE="en")
def test_each_language_of_a_row_has_its_title(
    client: Client, sources: Sources, settings: Any
) -> None:
    settings.SITEMAPKIT_HTML_PAGE_SIZE = 4  # two rows of two languages
    sources(Translated)
    for slug in ("a", "b", "c"):
        ArticleFactory.create(slug=slug, title=slug.upper())
    second = document(fetch(client, "/sitemap-translated-2.html")[1])
    assert [row.link for row in page_rows(second)] == [
        Link("C", "/en/articles/c/"),
        Link("C", "/fr/articles/c/"),
    ]


class NoSuchTitle(ArticleSource):
    title = "subtitle"


class TitleOfWrongKind(ArticleSource):
    title = ["title"]  # type: ignore[assignment]


def test_the_checks_of_a_title() -> None:
    assert check_field_paths(NoSuchTitle()) == [
        Error(
            "Sitemap source test_html_titles.NoSuchTitle names the field path 'subtitle', "
            "which does not exist on testapp.Article.",
            hint="Use a field name, or a path across relations such as 'category__slug'.",
            obj=NoSuchTitle,
            id="sitemapkit.E011",
        )
    ]
    assert check_kinds(TitleOfWrongKind()) == [
        Error(
            "Sitemap source test_html_titles.TitleOfWrongKind declares title ['title'], "
            "not a field path (str) or None.",
            hint="Set title to the field path of each row's title, such as 'headline' or "
            "'category__name', or to None to show each URL's path.",
            obj=TitleOfWrongKind,
            id="sitemapkit.E031",
        )
    ]
