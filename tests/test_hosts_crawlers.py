"""Real crawlers read several sites served by one live server: Scrapy's
``SitemapSpider`` and ultimate-sitemap-parser, each through a site's host name.

Three sites are configured (``SITEMAPKIT_SITES``) on the one server at
127.0.0.1; two are crawled. Each crawl starts from its host's robots.txt (or
index), and must discover that site's URLs and only those: no other host's, and
none of the third site, whose rows are in the same tables. The host names do
not exist: the crawl's resolver answers 127.0.0.1 for them (tests/host_crawl.py,
run in a process of its own), and ultimate-sitemap-parser's HTTP client connects
to 127.0.0.1 with the host in the ``Host`` header. The server is real and
answers by that header; nothing is mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.db.models import QuerySet
from factories import ArticleFactory
from pytest_django.live_server_helper import LiveServer
from testapp.models import Article, Category
from usp.fetch_parse import SitemapFetcher
from usp.objects.sitemap import AbstractSitemap, IndexXMLSitemap, PagesXMLSitemap
from usp.web_client.abstract_client import (
    AbstractWebClient,
    AbstractWebClientResponse,
    WebClientErrorResponse,
)
from usp_answers import Answer

from django_sitemapkit import SitemapSite, SitemapSource, StaticSource

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TESTS = Path(__file__).resolve().parent
#: The sites, each on ``<name>.sitemapkit.test`` (RFC 6761: a name that never resolves).
SITES = ("www", "shop", "news")
CRAWLED = ("www", "shop")
CRAWL_SECONDS = 120


class ArticleSource(SitemapSource):
    """On every site: the published articles of the category named after the site,
    two to a page."""

    name = "articles"
    queryset = Article.objects.filter(published=True)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Article]:
        articles: QuerySet[Article] = self.get_queryset().filter(category__slug=site.name)
        return articles


class CategorySource(SitemapSource):
    """The shop's only: every category."""

    name = "categories"
    sites = ["shop"]
    queryset = Category.objects.all()
    url_name = "category-detail"
    url_kwargs = {"category": "slug"}


class PageSource(StaticSource):
    name = "pages"
    sites = ["www", "news"]
    urls = ["home", "about"]


def host(name: str) -> str:
    return f"{name}.sitemapkit.test"


@pytest.fixture
def sites(live_server: LiveServer, settings: Any, sources: Any) -> dict[str, str]:
    """Site name -> base URL, on the live server's port; and each site's rows."""
    port = urlsplit(live_server.url).port
    bases = {name: f"http://{host(name)}:{port}" for name in SITES}
    settings.SITEMAPKIT_SITES = bases
    settings.ALLOWED_HOSTS = [host(name) for name in SITES]
    sources(ArticleSource, CategorySource, PageSource)
    category = {name: Category.objects.create(slug=name, name=name.title()) for name in SITES}
    ArticleFactory.create_batch(3, category=category["www"])
    ArticleFactory.create(category=category["www"], published=False, slug="draft")
    ArticleFactory.create(category=category["shop"])
    ArticleFactory.create_batch(2, category=category["news"])
    return bases


def expected_locations(sites: dict[str, str], name: str) -> list[str]:
    """What site ``name`` should list, from the rows and the declarations above."""
    base = sites[name]
    articles = Article.objects.filter(published=True, category__slug=name).order_by("pk")
    found = [f"{base}/articles/{slug}/" for slug in articles.values_list("slug", flat=True)]
    if name == "shop":
        found += [f"{base}/c/{slug}/" for slug in SITES]
    else:
        found += [f"{base}/", f"{base}/about/"]
    return found


#: The sitemap documents of each crawled site, after its robots.txt.
DOCUMENTS = {
    "www": [
        "sitemap.xml",
        "sitemap-articles-1.xml",
        "sitemap-articles-2.xml",
        "sitemap-pages-1.xml",
    ],
    "shop": ["sitemap.xml", "sitemap-articles-1.xml", "sitemap-categories-1.xml"],
}


def scrapy_crawl(start: str) -> dict[str, Any]:
    """Run tests/host_crawl.py on ``start``; both crawled hosts resolve to 127.0.0.1."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "host_crawl", start, *(host(name) for name in CRAWLED)],
        cwd=TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=CRAWL_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("name", CRAWLED)
def test_scrapy_discovers_each_sites_urls_and_only_those(sites: dict[str, str], name: str) -> None:
    base = sites[name]
    result = scrapy_crawl(f"{base}/robots.txt")

    assert result["problems"] == {}
    expected = expected_locations(sites, name)
    assert sorted(result["located"]) == sorted(expected)
    # robots.txt, the index, its pages, then each location: every one answered 200,
    # on the host the crawl started from.
    documents = [f"{base}/robots.txt"] + [f"{base}/{document}" for document in DOCUMENTS[name]]
    assert sorted(result["received"]) == sorted([url, 200] for url in documents + expected)
    assert {urlsplit(url).netloc for url, _ in result["received"]} == {urlsplit(base).netloc}


def test_the_uncrawled_sites_rows_are_in_the_same_tables(sites: dict[str, str]) -> None:
    # What keeps them out of the crawls above is the site, not an empty table.
    assert len(expected_locations(sites, "news")) == 4


# -- ultimate-sitemap-parser -------------------------------------------------------------

# Straight to the server, whatever the *_proxy variables say.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class LoopbackWebClient(AbstractWebClient):
    """usp's HTTP client: each URL's request goes to 127.0.0.1 on the URL's port, with
    the URL's host in the Host header."""

    def __init__(self) -> None:
        self.fetched: list[str] = []

    def set_max_response_data_length(self, max_response_data_length: int | None) -> None:
        pass

    def get(self, url: str) -> AbstractWebClientResponse:
        self.fetched.append(url)
        parts = urlsplit(url)
        request = urllib.request.Request(
            f"http://127.0.0.1:{parts.port}{parts.path}", headers={"Host": parts.netloc}
        )
        try:
            with OPENER.open(request, timeout=30) as response:
                return Answer(url, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return WebClientErrorResponse(f"{error.code} for {url}", retryable=False)


@pytest.mark.parametrize("name", CRAWLED)
def test_ultimate_sitemap_parser_reads_each_sites_index(sites: dict[str, str], name: str) -> None:
    base = sites[name]
    client = LoopbackWebClient()
    tree: AbstractSitemap = SitemapFetcher(
        url=f"{base}/sitemap.xml", recursion_level=0, web_client=client
    ).sitemap()

    assert isinstance(tree, IndexXMLSitemap)
    pages = [f"{base}/{document}" for document in DOCUMENTS[name][1:]]
    # An unreadable page would be an InvalidSitemap here.
    assert [(type(sub), sub.url) for sub in tree.sub_sitemaps] == [
        (PagesXMLSitemap, url) for url in pages
    ]
    assert sorted(page.url for page in tree.all_pages()) == sorted(expected_locations(sites, name))
    assert client.fetched == [f"{base}/sitemap.xml", *pages]
