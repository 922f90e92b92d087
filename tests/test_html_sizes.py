"""The size of the HTML sitemap's pages for visitors (``SITEMAPKIT_HTML_PAGE_SIZE``),
independent of the XML's, and their rows streamed between the template's halves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from factories import ArticleFactory
from html_pages import document, found, page_rows, pager, text
from sitemap_xml import fetch, parse_urlset
from testapp.sitemaps import ArticleSource

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_html")]
Sources = Callable[..., None]


class Titled(ArticleSource):
    title = "title"


def test_pages_for_visitors_have_their_own_size_and_a_pager(
    client: Client, sources: Sources, settings: Any
) -> None:
    settings.SITEMAPKIT_HTML_PAGE_SIZE = 2
    sources(Titled)
    for number in range(5):
        ArticleFactory.create(title=f"Post {number}")
    second = document(fetch(client, "/sitemap-articles-2.html")[1])
    assert text(found(second, "//h1")[0]) == "Articles page 2 of 3"
    assert text(found(second, "//title")[0]) == "Articles, page 2 · Sitemap"
    assert [row.link.text for row in page_rows(second)] == ["Post 2", "Post 3"]
    assert pager(second) == {
        "prev": "/sitemap-articles-1.html",
        "next": "/sitemap-articles-3.html",
    }
    last = document(fetch(client, "/sitemap-articles-3.html")[1])
    assert [row.link.text for row in page_rows(last)] == ["Post 4"]
    assert pager(last) == {"prev": "/sitemap-articles-2.html"}
    assert client.get("/sitemap-articles-4.html").status_code == 404
    # The XML keeps its own pages: one of five URLs.
    assert len(parse_urlset(fetch(client, "/sitemap-articles-1.xml")[1])) == 5
    assert client.get("/sitemap-articles-2.xml").status_code == 404


def test_a_large_page_streams_in_pieces(client: Client, sources: Sources, settings: Any) -> None:
    settings.SITEMAPKIT_HTML_PAGE_SIZE = 3_000
    sources(Titled)
    ArticleFactory.create_batch(3_000)
    response = client.get("/sitemap-articles-1.html")
    chunks = list(response.streaming_content)  # type: ignore[attr-defined]
    # Never one string of the whole page: the layout's first half, then rows.
    assert len(chunks) > 3
    assert chunks[0].startswith(b"<!DOCTYPE html>")
    assert len(page_rows(document(b"".join(chunks)))) == 3_000
