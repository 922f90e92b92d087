"""Real crawlers read django_sitemapkit.compat's documents: Scrapy and ultimate-sitemap-parser.

The classes and the URLconf are tests/test_compat.py's (testapp.contrib_sitemaps,
testapp.urls_compat): contrib's views under /contrib/, the drop-in's under
/compat/, over one dict. The expected values come from the test data, or from
what contrib's own views serve for it, never from the drop-in.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import pytest
from contrib_side_by_side import SITE, serve_side_by_side, tricky_articles
from django.test import Client
from django.urls import reverse
from scrapy import Request
from scrapy.http import Headers, Response
from scrapy.responsetypes import responsetypes
from scrapy.spiders import SitemapSpider
from scrapy.utils.sitemap import Sitemap
from sitemap_xml import parse_extended_urlset, parse_index, streamed
from testapp.contrib_sitemaps import GENERIC, ArticleSitemap, StaticViewSitemap
from testapp.models import Article
from usp.fetch_parse import SitemapFetcher
from usp.objects.page import SITEMAP_PAGE_DEFAULT_PRIORITY, SitemapPage, SitemapPageChangeFrequency
from usp.objects.sitemap import AbstractSitemap, IndexXMLSitemap, PagesXMLSitemap
from usp.tree import sitemap_from_str
from usp.web_client.abstract_client import (
    AbstractWebClient,
    AbstractWebClientResponse,
    WebClientErrorResponse,
)
from usp_answers import Answer

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat")]
INDEX = f"{SITE}/compat/sitemap.xml"
CONTRIB_INDEX = f"{SITE}/contrib/sitemap.xml"

#: What ultimate-sitemap-parser reads of one <url>: loc, lastmod, changefreq, priority.
UspUrl = tuple[str, dt.datetime | None, SitemapPageChangeFrequency | None, Decimal]


@pytest.fixture(autouse=True)
def side_by_side(settings: Any) -> None:
    serve_side_by_side(settings)


@pytest.fixture
def articles() -> list[Article]:
    return tricky_articles()


class Web:
    """The test client as a crawler's HTTP client: absolute https URLs on the site's
    host, every streamed body read whole (an unread one keeps a PostgreSQL cursor)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.fetched: list[str] = []

    def get(self, url: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(url)
        assert (parts.scheme, parts.netloc) == ("https", "www.example.com"), url
        self.fetched.append(url)
        response = self.client.get(
            parts.path + (f"?{parts.query}" if parts.query else ""),
            secure=True,
            headers={"Host": parts.netloc},
        )
        body = streamed(response) if response.streaming else response.content
        if response.status_code == 200 and parts.path.startswith("/compat/"):
            # Every document of the drop-in a crawler reads is valid against the
            # schemas the package ships (parsing validates first).
            (parse_index if b"<sitemapindex" in body[:200] else parse_extended_urlset)(body)
        return response.status_code, dict(response.headers), body

    def scrapy(self, url: str) -> Sitemap:
        status, _, body = self.get(url)
        assert status == 200, (url, body[:300])
        return Sitemap(body)


# -- Scrapy ------------------------------------------------------------------------------


def as_written(entry: dict[str, Any]) -> dict[str, Any]:
    """sitemaps.org's rule the drop-in applies and contrib does not: a priority outside
    0.0 to 1.0 is left out (the URL is kept)."""
    if "priority" not in entry or 0.0 <= float(entry["priority"]) <= 1.0:
        return entry
    return {name: value for name, value in entry.items() if name != "priority"}


def contrib_pages(web: Web) -> dict[str, list[dict[str, Any]]]:
    """URL on /compat/ -> the entries Scrapy reads on contrib's same page, for each
    page contrib's index lists with entries (the drop-in leaves an empty one out)."""
    index = web.scrapy(CONTRIB_INDEX)
    assert index.type == "sitemapindex"
    pages = {}
    for item in index:
        page = web.scrapy(item["loc"])
        assert page.type == "urlset"
        entries = list(page)
        if entries:
            compat = item["loc"].replace(f"{SITE}/contrib/", f"{SITE}/compat/")
            pages[compat] = [as_written(entry) for entry in entries]
    return pages


def comparable(entry: dict[str, Any]) -> dict[str, Any]:
    # contrib writes a lastmod as a date, the drop-in as a datetime: compare
    # where one is written, and the values with ultimate-sitemap-parser below.
    return {**entry, "lastmod": "lastmod" in entry}


def test_scrapy_reads_the_index_and_every_page_as_contrib_lists_them(
    client: Client, articles: list[Article]
) -> None:
    web = Web(client)
    expected = contrib_pages(web)
    assert len(expected) == 6  # three pages of articles, static, generic, own

    index = web.scrapy(INDEX)
    assert index.type == "sitemapindex"
    pages = [item["loc"] for item in index]
    assert pages == list(expected)
    assert f"{SITE}/compat/sitemap-articles.xml?p=3" in pages

    read: dict[str, list[dict[str, Any]]] = {}
    for url in pages:  # followed as a crawler follows them, ?p=N included
        page = web.scrapy(url)
        assert page.type == "urlset"
        read[url] = list(page)
        assert [comparable(entry) for entry in read[url]] == [
            comparable(entry) for entry in expected[url]
        ]

    locations = {entry["loc"] for entries in read.values() for entry in entries}
    contrib_locations = {entry["loc"] for entries in expected.values() for entry in entries}
    assert locations == contrib_locations
    assert f"{SITE}/articles/a&b%3Cc%3E'd%22e/" in locations
    assert f"{SITE}/articles/caf%C3%A9-%C3%BC/" in locations
    assert f"{SITE}/articles/too-high/" in locations


class Crawler(SitemapSpider):
    name = "crawler"
    sitemap_urls = (INDEX,)

    def parse(self, response: Response, **kwargs: Any) -> Any:
        raise AssertionError("the test requests no page of the site")


def test_scrapy_sitemap_spider_follows_the_index_to_every_location(
    client: Client, articles: list[Article]
) -> None:
    web = Web(client)
    expected = contrib_pages(web)
    web.fetched.clear()
    spider = Crawler()

    async def start() -> list[Request]:
        return [request async for request in spider.start()]

    queue = asyncio.run(start())
    requested: list[str] = []
    while queue:
        request = queue.pop(0)
        if request.callback == spider.parse:
            requested.append(request.url)
            continue
        # What Scrapy's downloader makes of the answer: the response class follows
        # the Content-Type, and SitemapSpider reads a page whose URL does not end
        # in .xml (?p=2) only from an XmlResponse.
        status, headers, body = web.get(request.url)
        assert status == 200
        scrapy_headers = Headers(headers)
        response = responsetypes.from_args(headers=scrapy_headers, url=request.url, body=body)(
            url=request.url, status=status, headers=scrapy_headers, body=body, request=request
        )
        assert request.callback is not None
        queue.extend(request.callback(response))

    assert web.fetched == [INDEX, *expected]
    assert sorted(requested) == sorted(
        entry["loc"] for entries in expected.values() for entry in entries
    )


# -- ultimate-sitemap-parser -------------------------------------------------------------
# usp unescapes HTML entities once more after the XML parser, so it would read a
# doubly escaped "&amp;amp;" as "&": the Scrapy tests above catch that, not these.


def usp_url(page: SitemapPage) -> UspUrl:
    return (page.url, page.last_modified, page.change_frequency, page.priority)


def entry(
    path: str, lastmod: dt.datetime | None, changefreq: str | None, priority: float | None
) -> UspUrl:
    return (
        f"{SITE}{path}",
        lastmod,
        None if changefreq is None else SitemapPageChangeFrequency(changefreq),
        # usp gives its default, 0.5, for a <url> without <priority>.
        SITEMAP_PAGE_DEFAULT_PRIORITY if priority is None else Decimal(str(priority)),
    )


def expected_usp(articles: list[Article]) -> dict[str, list[UspUrl]]:
    """Page URL -> what usp should read on it, from the test data and the classes."""
    published = sorted(articles, key=lambda article: article.pk)
    limit = ArticleSitemap.limit
    pages: dict[str, list[UspUrl]] = {}
    for number, start in enumerate(range(0, len(published), limit), start=1):
        url = f"{SITE}/compat/sitemap-articles.xml" + ("" if number == 1 else f"?p={number}")
        pages[url] = [
            entry(
                reverse("article-detail", kwargs={"slug": article.slug}),
                article.updated_at,
                ArticleSitemap.changefreq,
                # Outside 0.0 to 1.0: left out, the URL kept.
                None if article.priority is not None and article.priority > 1 else article.priority,
            )
            for article in published[start : start + limit]
        ]
    static = StaticViewSitemap
    pages[f"{SITE}/compat/sitemap-static.xml"] = [
        entry(reverse(name), None, static.changefreq, static.priority) for name in ("home", "about")
    ]
    pages[f"{SITE}/compat/sitemap-generic.xml"] = [
        entry(article.get_absolute_url(), article.updated_at, GENERIC.changefreq, GENERIC.priority)
        for article in published
    ]
    pages[f"{SITE}/compat/sitemap-own.xml"] = [
        # OwnUrlsSitemap.get_urls(): a date lastmod, which usp reads as a naive midnight.
        entry(reverse("about"), dt.datetime(2024, 5, 1), None, 0.9),
        entry("/own/", None, "never", None),
    ]
    return pages


def test_ultimate_sitemap_parser_reads_the_index_and_every_page(
    client: Client, articles: list[Article]
) -> None:
    expected = expected_usp(articles)
    assert len(expected) == 6
    assert [len(urls) for urls in expected.values()] == [3, 3, 1, 2, 7, 2]
    web = Web(client)

    status, _, body = web.get(INDEX)
    assert status == 200
    index = sitemap_from_str(body.decode())
    assert isinstance(index, IndexXMLSitemap)
    # usp keeps a sub-sitemap's URL only (not its lastmod); sitemap_from_str fetches none.
    pages = [sub.url for sub in index.sub_sitemaps]
    assert pages == list(expected)

    for url in pages:  # followed as a crawler follows them, ?p=N included
        status, _, body = web.get(url)
        assert status == 200
        page = sitemap_from_str(body.decode())
        assert isinstance(page, PagesXMLSitemap)
        assert [usp_url(found) for found in page.pages] == expected[url]
    assert web.fetched == [INDEX, *expected]


class DjangoWebClient(AbstractWebClient):
    """usp's HTTP client, answered by the test client: usp follows the index itself."""

    def __init__(self, web: Web) -> None:
        self.web = web

    def set_max_response_data_length(self, max_response_data_length: int | None) -> None:
        pass

    def get(self, url: str) -> AbstractWebClientResponse:
        status, headers, body = self.web.get(url)
        if status != 200:
            return WebClientErrorResponse(f"{status} for {url}", retryable=False)
        return Answer(url, headers, body)


def test_ultimate_sitemap_parser_crawls_from_the_index_to_every_page(
    client: Client, articles: list[Article]
) -> None:
    expected = expected_usp(articles)
    web = Web(client)
    tree: AbstractSitemap = SitemapFetcher(
        url=INDEX, recursion_level=0, web_client=DjangoWebClient(web)
    ).sitemap()

    assert isinstance(tree, IndexXMLSitemap)
    # An unreadable page would be an InvalidSitemap here.
    assert [(type(sub), sub.url) for sub in tree.sub_sitemaps] == [
        (PagesXMLSitemap, url) for url in expected
    ]
    assert {sub.url: [usp_url(page) for page in sub.pages] for sub in tree.sub_sitemaps} == (
        expected
    )
    assert web.fetched == [INDEX, *expected]
