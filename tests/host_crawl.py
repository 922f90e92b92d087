"""A Scrapy crawl of one host's sitemaps, in a process of its own, for
tests/test_hosts_crawlers.py: Twisted's reactor runs once per process, so each
crawl gets a fresh one.

    python -m host_crawl START_URL NAME [NAME ...]

``SitemapSpider`` starts from START_URL (a robots.txt or an index), follows the
index to its pages and each page to its locations, and prints one JSON object:
every response it received (URL and status), the locations its ``parse``
callback reached, and what went wrong (Scrapy's counts of download exceptions
and of errors logged). NAME are the host names that
resolve, to 127.0.0.1 (``LoopbackResolver``): the server there answers for them
by the ``Host`` header, as it would behind a real DNS name; any other name
fails to resolve.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import Crawler, CrawlerProcess
from scrapy.http import Response
from scrapy.spiders import SitemapSpider
from twisted.internet import defer
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IResolverSimple
from zope.interface import implementer  # type: ignore[import-untyped]  # no stubs

LOOPBACK = "127.0.0.1"


@implementer(IResolverSimple)
class LoopbackResolver:
    """Scrapy's ``DNS_RESOLVER``: 127.0.0.1 for the names of ``LOOPBACK_NAMES``, and
    a failed lookup for any other, as for a name that does not exist."""

    def __init__(self, reactor: Any, names: Sequence[str]) -> None:
        self.reactor = reactor
        self.names = frozenset(name.lower() for name in names)

    @classmethod
    def from_crawler(cls, crawler: Crawler, reactor: Any) -> LoopbackResolver:
        return cls(reactor, crawler.settings.getlist("LOOPBACK_NAMES"))

    def install_on_reactor(self) -> None:
        self.reactor.installResolver(self)

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:
        if name.lower() in self.names:
            return defer.succeed(LOOPBACK)
        return defer.fail(DNSLookupError(f"{name} is not one of the crawl's host names"))


class HostCrawler(SitemapSpider):
    name = "host-crawler"
    # Every page of the index, whatever its URL looks like.
    sitemap_follow = [""]

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sitemap_urls = [start]
        self.located: list[str] = []

    def parse(self, response: Response, **kwargs: Any) -> Any:
        self.located.append(response.url)
        return None


def crawl(start: str, names: Sequence[str]) -> dict[str, Any]:
    process = CrawlerProcess(
        {
            "DNS_RESOLVER": f"{__name__}.LoopbackResolver",
            "LOOPBACK_NAMES": list(names),
            # Straight to the server, whatever the *_proxy variables say.
            "HTTPPROXY_ENABLED": False,
            # One request at a time: the test's live server shares one SQLite
            # connection between its threads.
            "CONCURRENT_REQUESTS": 1,
            "ROBOTSTXT_OBEY": False,
            "RETRY_ENABLED": False,
            "DOWNLOAD_TIMEOUT": 30,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "ERROR",
        }
    )
    received: list[tuple[str, int]] = []

    def on_response(response: Response, request: Request, spider: Any) -> None:
        received.append((response.url, response.status))

    crawler = process.create_crawler(HostCrawler)
    crawler.signals.connect(on_response, signal=signals.response_received)
    process.crawl(crawler, start=start)
    process.start()
    spider = crawler.spider
    assert isinstance(spider, HostCrawler)
    assert crawler.stats is not None
    problems = {
        key: value
        for key, value in crawler.stats.get_stats().items()
        if key.startswith(
            ("downloader/exception_type_count/", "log_count/ERROR", "spider_exceptions/")
        )
    }
    return {"received": received, "located": spider.located, "problems": problems}


if __name__ == "__main__":
    start_url, *host_names = sys.argv[1:]
    print(json.dumps(crawl(start_url, host_names)))
