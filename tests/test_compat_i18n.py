"""django_sitemapkit.compat against django.contrib.sitemaps' views for ``i18n`` classes:
the same URLs per page, and the same alternates, written by the engine."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from contrib_side_by_side import SITE, serve_side_by_side
from django.test import Client
from factories import ArticleFactory
from lxml import etree
from sitemap_xml import fetch, parse_extended_urlset, parse_index
from testapp.models import Article

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat_i18n")]
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
Urls = list[tuple[str, list[tuple[str, str]]]]


@pytest.fixture(autouse=True)
def side_by_side(settings: Any) -> None:
    serve_side_by_side(settings)
    settings.LANGUAGE_CODE = "en"
    settings.LANGUAGES = [("en", "English"), ("fr", "French"), ("de", "German")]


@pytest.fixture
def articles() -> list[Article]:
    return [ArticleFactory.create(slug=slug) for slug in ("a&b", "café", "third")]


def urls_of(body: bytes) -> Urls:
    """Each ``<url>``'s location and its alternates (hreflang, href), in order."""
    root = etree.fromstring(body)
    return [
        (
            url.findtext("sm:loc", namespaces=NS) or "",
            [
                (link.get("hreflang") or "", link.get("href") or "")
                for link in url.iterfind("xhtml:link", NS)
            ],
        )
        for url in root.iterfind("sm:url", NS)
    ]


def our_urls(body: bytes) -> Urls:
    """``urls_of()`` for a document of ours, validated against the shipped schemas first."""
    return [(url.loc, url.alternates) for url in parse_extended_urlset(body)]


def contrib_page(client: Client, url: str) -> Urls:
    response = client.get(url, secure=True, headers={"Host": "www.example.com"})
    assert response.status_code == 200
    return urls_of(response.content)


@pytest.mark.parametrize(
    "page",
    [
        "sitemap-articles.xml",
        "sitemap-articles.xml?p=2",
        "sitemap-articles.xml?p=3",
        "sitemap-pages.xml",
        "sitemap-plain.xml?p=2",
    ],
)
def test_each_page_lists_contribs_urls_and_alternates(
    client: Client, articles: list[Article], page: str, caplog: pytest.LogCaptureFixture
) -> None:
    expected = contrib_page(client, f"/contrib/{page}")
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        status, body, _ = fetch(client, f"/compat/{page}")
    assert status == 200
    assert our_urls(body) == expected
    assert caplog.records == []


def test_alternates_are_every_language_and_the_x_default(
    client: Client, articles: list[Article]
) -> None:
    _, body, _ = fetch(client, "/compat/sitemap-articles.xml")
    links = [
        ("en", f"{SITE}/en/articles/a&b/"),
        ("fr", f"{SITE}/fr/articles/a&b/"),
        ("de", f"{SITE}/de/articles/a&b/"),
        ("x-default", f"{SITE}/articles/a&b/"),
    ]
    # Pages of four URLs: page 1 ends with the first language of the second article.
    assert [loc for loc, _ in our_urls(body)] == [
        f"{SITE}/en/articles/a&b/",
        f"{SITE}/fr/articles/a&b/",
        f"{SITE}/de/articles/a&b/",
        f"{SITE}/en/articles/caf%C3%A9/",
    ]
    assert our_urls(body)[0][1] == links
    assert b'xmlns:xhtml="http://www.w3.org/1999/xhtml"' in body


def test_the_index_lists_the_same_pages(client: Client, articles: list[Article]) -> None:
    response = client.get("/contrib/sitemap.xml", secure=True, headers={"Host": "www.example.com"})
    expected = [loc.replace("/contrib/", "/compat/") for loc, _ in parse_index(response.content)]
    _, body, _ = fetch(client, "/compat/sitemap.xml")
    assert [loc for loc, _ in parse_index(body)] == expected
    assert len(expected) == 3 + 1 + 3  # 9 URLs in fours, 5 in one page, 9 in fours


def test_a_page_past_the_last_is_a_404_as_in_contrib(
    client: Client, articles: list[Article]
) -> None:
    assert client.get("/contrib/sitemap-articles.xml?p=4", secure=True).status_code == 404
    assert client.get("/compat/sitemap-articles.xml?p=4").status_code == 404
