"""The index and page views: conditional GET first, then a streamed document."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Generator, Iterator
from itertools import chain

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import MAX_BYTES, MAX_URLS, conf
from django_sitemapkit.encoder import SITEMAPINDEX, URLSET, Encoder, Entry
from django_sitemapkit.index import index_entries, indexed_pages, newest
from django_sitemapkit.locations import LocationPolicy, Origin
from django_sitemapkit.registry import registry
from django_sitemapkit.sources import BaseSource, LastmodValue
from django_sitemapkit.values import http_timestamp

logger = logging.getLogger("django_sitemapkit")

CONTENT_TYPE = "application/xml; charset=utf-8"


@require_safe
def index(request: HttpRequest) -> HttpResponseBase:
    origin = Origin.from_settings()
    pages = list(indexed_pages())
    if not pages:
        raise Http404("No sitemap section has any rows.")
    entries = index_entries(pages, origin)
    if len(entries) > MAX_URLS:
        logger.error(
            "The sitemap index lists only the first %s of %s pages; raise SITEMAPKIT_LIMIT "
            "or a source's limit so that fewer pages are needed.",
            f"{MAX_URLS:,}",
            f"{len(entries):,}",
        )
    etag = weak_etag("index", *entries)
    lastmod = newest(pages)
    not_modified = conditional(request, etag, lastmod)
    if not_modified is not None:
        return not_modified
    return stream_response(request, Encoder(SITEMAPINDEX).stream(entries), etag, lastmod)


@require_safe
def page(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    source = registry.get(section)
    if source is None:
        raise Http404(f"No sitemap section named {section!r}.")
    stats = source.page_stats(page)
    if stats.rows == 0:
        raise Http404(f"Sitemap section {section!r} has no page {page}.")
    etag = None
    if stats.lastmod is not None:
        etag = weak_etag(section, page, source.page_size(), *stats.fingerprint)
    not_modified = conditional(request, etag, stats.lastmod)
    if not_modified is not None:
        return not_modified
    entries = source.entries(source.page_rows(page), LocationPolicy.from_settings())
    first = next(entries, None)
    if first is None:
        logger.error(
            "Page %s of sitemap source %r has no valid entry (see the warnings above); "
            "it is answered with 404.",
            page,
            section,
        )
        raise Http404(f"Sitemap section {section!r} page {page} has no valid entry.")
    body = checked_urlset(first, entries, source, page)
    return stream_response(request, body, etag, stats.lastmod)


def checked_urlset(
    first: Entry, rest: Generator[Entry], source: BaseSource, page: int
) -> Iterator[bytes]:
    """The page's bytes, logging an error if the 50 MiB cap cut it short."""
    encoder = Encoder(URLSET, max_urls=source.page_size())
    try:
        yield from encoder.stream(chain([first], rest))
    finally:
        # Release the rows (and their cursor) now, even if the client left.
        rest.close()
    if encoder.cut:
        logger.error(
            "Page %s of sitemap source %r was cut after %s URLs: the next one would take it "
            "past %s bytes (the protocol's 50 MiB). Set limit = %s on the source so every "
            "page fits.",
            page,
            source.name,
            f"{encoder.count:,}",
            f"{MAX_BYTES:,}",
            encoder.count,
        )


def stream_response(
    request: HttpRequest,
    content: Iterator[bytes],
    etag: str | None,
    lastmod: LastmodValue | None,
) -> HttpResponseBase:
    response: HttpResponseBase
    if request.method == "HEAD":
        # Same status and headers as GET, without reading the rest of the rows.
        close = getattr(content, "close", None)
        if close is not None:
            close()
        response = HttpResponse(content_type=CONTENT_TYPE)
    else:
        response = StreamingHttpResponse(content, content_type=CONTENT_TYPE)
    if etag is not None:
        response["ETag"] = etag
    if lastmod is not None:
        response["Last-Modified"] = http_date(http_timestamp(lastmod))
    if conf.X_ROBOTS_TAG:
        response["X-Robots-Tag"] = conf.X_ROBOTS_TAG
    return response


def conditional(
    request: HttpRequest, etag: str | None, lastmod: LastmodValue | None
) -> HttpResponseBase | None:
    """A 304 (or 412) answer to a conditional request, decided before any row is read."""
    timestamp = None if lastmod is None else int(http_timestamp(lastmod))
    return get_conditional_response(request, etag=etag, last_modified=timestamp)


def weak_etag(*parts: object) -> str:
    """A weak validator (RFC 9110 section 8.8.1): equal when the page's data is
    equal, as seen by what the database can tell cheaply."""
    seed = repr((conf.BASE_URL, *parts)).encode()
    return f'W/"{hashlib.blake2b(seed, digest_size=12).hexdigest()}"'
