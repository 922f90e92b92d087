"""The sitemap views: each answers from the built files or from the database, as
``SITEMAPKIT_SERVE`` says, and as XML or as the gzip file of that XML."""

from __future__ import annotations

import hashlib
import io
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from itertools import chain
from typing import NamedTuple, cast

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from django_sitemapkit import html, serving
from django_sitemapkit.compression import gzip_stream
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.encoder import SITEMAPINDEX, Document, Encoder, Entry
from django_sitemapkit.index import index_entries, indexed_pages, newest
from django_sitemapkit.locations import (
    GZIP_SUFFIX,
    INDEX_FILENAME,
    LocationPolicy,
    Origin,
    fixed_script_prefix,
    index_path,
    page_filename,
    page_path,
)
from django_sitemapkit.registry import registry
from django_sitemapkit.sources import BaseSource, LastmodValue, PageStats
from django_sitemapkit.values import http_timestamp

logger = logging.getLogger("django_sitemapkit")
#: Seconds a crawler is asked to wait after a 503 (RFC 9110 section 10.2.3).
RETRY_AFTER = 120


class Representation(NamedTuple):
    """How one document goes on the wire."""

    label: str  # in the ETag seed, so two representations never share a validator
    suffix: str  # after the ".xml" of the URL and of the built file's name
    content_type: str
    encode: Callable[[Iterator[bytes]], Iterator[bytes]]


def as_is(chunks: Iterator[bytes]) -> Iterator[bytes]:
    return chunks


class ClosingStream:
    """Chunks whose ``close()`` also closes ``resource``, even if iteration never began.

    Closing a generator that was never started runs none of its ``finally``
    blocks, so a response dropped before its first chunk would otherwise keep
    the page's rows (and a PostgreSQL server-side cursor) until garbage collection.
    """

    def __init__(self, chunks: Iterator[bytes], resource: object) -> None:
        self.chunks = chunks
        self.resource = resource

    def __iter__(self) -> ClosingStream:
        return self

    def __next__(self) -> bytes:
        return next(self.chunks)

    def close(self) -> None:
        for closable in (self.chunks, self.resource):
            close = getattr(closable, "close", None)
            if close is not None:
                close()


def gzipped(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """``gzip_stream`` that closes the document's stream when it is closed itself,
    so a client that leaves early releases the rows (and their cursor) at once."""
    return ClosingStream(gzip_stream(chunks), chunks)


XML = Representation("xml", "", serving.XML_CONTENT_TYPE, as_is)
# The HTML pages for people (html.py); never a built file.
HTML = Representation("html", "", html.CONTENT_TYPE, as_is)
# The .xml.gz URLs: the body is a gzip file (RFC 6713), not XML with a content
# coding, so no Content-Encoding is sent and nothing decodes it on the way.
GZIP = Representation("gzip", GZIP_SUFFIX, serving.GZIP_CONTENT_TYPE, gzipped)


@require_safe
def index(request: HttpRequest) -> HttpResponseBase:
    return index_as(request, XML)


@require_safe
def index_gz(request: HttpRequest) -> HttpResponseBase:
    return index_as(request, GZIP)


@require_safe
def page(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    return page_as(request, section, page, XML)


@require_safe
def page_gz(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    return page_as(request, section, page, GZIP)


def index_as(request: HttpRequest, representation: Representation) -> HttpResponseBase:
    response = built_file(request, INDEX_FILENAME, representation)
    if response is None:
        try:
            response = database_index(request, representation)
        except (OperationalError, InterfaceError):
            response = unavailable(request, "The sitemap index")
    return for_server(request, response)


def page_as(
    request: HttpRequest, section: str, page: int, representation: Representation
) -> HttpResponseBase:
    response = built_file(request, page_filename(section, page), representation)
    if response is None:
        try:
            response = database_page(request, representation, section, page)
        except (OperationalError, InterfaceError):
            response = unavailable(request, f"Page {page} of sitemap source {section!r}")
    return for_server(request, response)


def unavailable(request: HttpRequest, document: str) -> HttpResponse:
    """A 503 for a database that failed before the first byte: a crawler retries
    later (RFC 9110 section 15.6.4), where a 500 would read as a broken site.

    Only for the errors of a database that is down or went away (lost
    connection, timeout, too many clients); a missing table or a bad query is a
    bug that retrying will not mend, and stays a 500.
    """
    logger.exception(
        "%s could not be read from the database; it is answered with 503 and Retry-After. "
        "Check that the database is reachable, or serve built files (SITEMAPKIT_SERVE = "
        "'files').",
        document,
    )
    return HttpResponse(
        b"" if request.method == "HEAD" else b"The sitemap is unavailable; try again later.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
        headers={"Retry-After": str(RETRY_AFTER)},
    )


def for_server(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """Under ASGI, a streamed body as an asynchronous iterator.

    Django serves a synchronous iterator to an ASGI server by collecting it
    whole first (and warns): the page would sit in memory, its first byte
    waiting for the last.
    """
    if (
        isinstance(request, ASGIRequest)
        and isinstance(response, StreamingHttpResponse)
        and not response.is_async
    ):
        chunks = cast(Iterator[bytes], response.streaming_content)
        # A file on the local disk is read with plain reads that need no
        # database connection: any thread of the pool will do, without queueing
        # behind the views' queries on the one thread that has it. A storage's
        # file may need the request's thread (a storage in the database, say).
        local_file = isinstance(response, FileResponse) and isinstance(
            response.file_to_stream, io.BufferedReader
        )
        response.streaming_content = asynchronous(chunks, thread_sensitive=not local_file)
    return response


async def asynchronous(
    chunks: Iterator[bytes], *, thread_sensitive: bool = True
) -> AsyncIterator[bytes]:
    """``chunks``, each made in the thread Django runs synchronous code in for this
    request, where its database connection and the page's cursor live (or, with
    ``thread_sensitive=False``, in any thread of asgiref's pool).

    Closing stays with the response: Django closes it, on that same thread,
    however the stream ends.
    """
    step = sync_to_async(next_chunk, thread_sensitive=thread_sensitive)
    while (chunk := await step(chunks)) is not None:
        yield chunk


def next_chunk(chunks: Iterator[bytes]) -> bytes | None:
    return next(chunks, None)


def built_file(
    request: HttpRequest, filename: str, representation: Representation
) -> HttpResponseBase | None:
    """The built file's response in the file modes; ``None`` to answer from the database."""
    if conf.SERVE not in serving.FILE_MODES:
        return None
    name = filename + representation.suffix
    response = serving.file_response(request, name)
    if response is None and conf.SERVE == "files":
        # Never a silent database scan: in this mode the build is the only source.
        raise Http404(f"{name} has not been built.")
    return response


def database_index(request: HttpRequest, representation: Representation) -> HttpResponseBase:
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
    etag = weak_etag(representation.label, "index", *entries)
    return document_response(
        request, representation, etag, newest(pages), lambda: checked_index(entries)
    )


# Writes a page's bytes from its first entry and the rest: the XML, or the HTML.
PageWriter = Callable[[Entry, Generator[Entry], BaseSource, int], Iterator[bytes]]


def database_page(
    request: HttpRequest,
    representation: Representation,
    section: str,
    page: int,
    writer: PageWriter | None = None,
) -> HttpResponseBase:
    source = registry.get(section)
    if source is None:
        raise Http404(f"No sitemap section named {section!r}.")
    stats = source.page_stats(page)
    if stats.rows == 0:
        raise Http404(f"Sitemap section {section!r} has no page {page}.")
    etag = None
    if stats.lastmod is not None:
        etag = weak_etag(
            representation.label, section, page, source.page_size(), *stats.fingerprint
        )
    head_only = request.method == "HEAD"
    return document_response(
        request,
        representation,
        etag,
        stats.lastmod,
        lambda: page_body(source, page, stats, head_only, writer or checked_urlset),
    )


def page_body(
    source: BaseSource, page: int, stats: PageStats, head_only: bool, writer: PageWriter
) -> Iterator[bytes]:
    """The page's bytes; its first valid entry is read now, so a page without one is a 404."""
    rows = source.page_rows(page, stats.start)
    entries = source.entries(rows, LocationPolicy.from_settings())
    first = next(entries, None)
    if first is None:
        logger.error(
            "Page %s of sitemap source %r has no valid entry (see the warnings above); "
            "it is answered with 404.",
            page,
            source.name,
        )
        raise Http404(f"Sitemap section {source.name!r} page {page} has no valid entry.")
    if not fits_alone(first, source.urlset()):
        entries.close()
        logger.error(
            "The first entry of page %s of sitemap source %r does not fit in %s bytes "
            "(SITEMAPKIT_MAX_BYTES) on its own; the page is answered with 404. Raise "
            "SITEMAPKIT_MAX_BYTES.",
            page,
            source.name,
            f"{conf.MAX_BYTES:,}",
        )
        raise Http404(f"Sitemap section {source.name!r} page {page} does not fit.")
    if head_only:
        # HEAD has its answer: release the rows (and their cursor) now.
        entries.close()
        return iter(())
    return ClosingStream(writer(first, entries, source, page), entries)


def fits_alone(entry: Entry, document: Document) -> bool:
    """Whether a ``<urlset>`` of this one entry fits in ``SITEMAPKIT_MAX_BYTES``: if
    not, the encoder would cut before it and write an empty, schema-invalid page."""
    size = len(document.opening) + len(document.element(entry).encode()) + len(document.closing)
    return size <= conf.MAX_BYTES


def checked_index(entries: list[Entry]) -> Iterator[bytes]:
    """The index's bytes, logging an error if ``SITEMAPKIT_MAX_BYTES`` cut it short."""
    encoder = Encoder(SITEMAPINDEX, max_bytes=conf.MAX_BYTES)
    yield from encoder.stream(entries)
    # A cut at the 50,000-entry cap was reported before the first byte.
    if encoder.cut and encoder.count < MAX_URLS:
        logger.error(
            "The sitemap index was cut after %s of %s pages: the next one would take it "
            "past %s bytes (SITEMAPKIT_MAX_BYTES). Raise SITEMAPKIT_MAX_BYTES, or "
            "SITEMAPKIT_LIMIT so that fewer pages are needed.",
            f"{encoder.count:,}",
            f"{len(entries):,}",
            f"{conf.MAX_BYTES:,}",
        )


def checked_urlset(
    first: Entry, rest: Generator[Entry], source: BaseSource, page: int
) -> Iterator[bytes]:
    """The page's bytes, logging an error if ``SITEMAPKIT_MAX_BYTES`` cut it short."""
    encoder = Encoder(source.urlset(), max_urls=source.url_limit(), max_bytes=conf.MAX_BYTES)
    try:
        yield from encoder.stream(chain([first], rest))
    except Exception as exc:
        # Headers and part of the body are sent: no status can say it now. The
        # encoder writes no closing tag after an error, and the server closes
        # the connection (without the last chunk of a chunked body), so the
        # client sees a truncated document, never a short but complete one.
        logger.exception(
            "Page %s of sitemap source %r failed after %s URLs were encoded (%s: %s); the "
            "response ends there, without its closing tag.",
            page,
            source.name,
            f"{encoder.count:,}",
            type(exc).__name__,
            exc,
        )
        raise
    finally:
        # Release the rows (and their cursor) now, even if the client left.
        rest.close()
    if encoder.cut:
        logger.error(
            "Page %s of sitemap source %r was cut after %s URLs: the next one would take it "
            "past %s bytes (SITEMAPKIT_MAX_BYTES). Set limit = %s on the source so every "
            "page fits.",
            page,
            source.name,
            f"{encoder.count:,}",
            f"{conf.MAX_BYTES:,}",
            encoder.count,
        )


def document_response(
    request: HttpRequest,
    representation: Representation,
    etag: str | None,
    lastmod: LastmodValue | None,
    body: Callable[[], Iterator[bytes]],
) -> HttpResponseBase:
    """A 304 (or 412) decided before any row is read; else HEAD's headers or GET's stream."""
    head = HttpResponse(content_type=representation.content_type)
    timestamp = None
    if etag is not None:
        head["ETag"] = etag
    if lastmod is not None:
        timestamp = last_modified(lastmod)
    if timestamp is not None:
        head["Last-Modified"] = http_date(timestamp)
    if conf.X_ROBOTS_TAG:
        head["X-Robots-Tag"] = conf.X_ROBOTS_TAG
    # Given ``head``, a 304 carries its ETag and Last-Modified (RFC 9110 section 15.4.5).
    answer = get_conditional_response(request, etag=etag, last_modified=timestamp, response=head)
    if answer is not head:
        assert answer is not None
        return answer
    content = body()  # may still be a 404: a page without a valid entry
    if request.method == "HEAD":
        # Same status and headers as GET, and no body (RFC 9110 section 9.3.2).
        return head
    return StreamingHttpResponse(representation.encode(content), headers=head.headers)


def last_modified(lastmod: LastmodValue) -> int | None:
    """``Last-Modified`` in seconds since the epoch, or ``None`` for a value that
    cannot be expressed in UTC (a naive 9999-12-31 23:00 west of Greenwich).

    Never later than now: RFC 9110 section 8.8.2.1 has a future time replaced by
    the time of the response, or an ``If-Modified-Since`` of that future date
    would answer 304 to every change made before it.
    """
    try:
        timestamp = int(http_timestamp(lastmod))
    except (OverflowError, ValueError):
        return None
    return min(timestamp, int(time.time()))


def weak_etag(*parts: object) -> str:
    """A weak validator (RFC 9110 section 8.8.1): equal when the page's data is
    equal, as seen by what the database can tell cheaply, and what else shapes
    its bytes is unchanged: the settings, the script prefix and the language
    the URLs are reversed in (LANGUAGE_CODE, whatever the request's)."""
    seed = repr(
        (conf.BASE_URL, conf.MAX_BYTES, fixed_script_prefix(), settings.LANGUAGE_CODE, *parts)
    ).encode()
    return f'W/"{hashlib.blake2b(seed, digest_size=12).hexdigest()}"'


# -- the HTML sitemap for people (html.py), from the database in every mode -----


@require_safe
def html_index(request: HttpRequest) -> HttpResponseBase:
    try:
        response = database_html_index(request)
    except (OperationalError, InterfaceError):
        response = unavailable(request, "The HTML sitemap index")
    return for_server(request, with_html_headers(response))


@require_safe
def html_page(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    try:
        response = database_page(request, HTML, section, page, html_urlset)
    except (OperationalError, InterfaceError):
        response = unavailable(request, f"HTML page {page} of sitemap source {section!r}")
    return for_server(request, with_html_headers(response))


def with_html_headers(response: HttpResponseBase) -> HttpResponseBase:
    if response.status_code in (200, 304):
        response["Content-Security-Policy"] = html.CONTENT_SECURITY_POLICY
        # A page for people: no X-Robots-Tag, which is meant for the XML.
        if "X-Robots-Tag" in response:
            del response["X-Robots-Tag"]
    return response


def database_html_index(request: HttpRequest) -> HttpResponseBase:
    origin = Origin.from_settings()
    pages = list(indexed_pages())
    if not pages:
        raise Http404("No sitemap section has any rows.")
    xml_entries = index_entries(pages, origin)
    # One count per section, not per page.
    counts = {item.source.name: item.source.count() for item in pages if item.page == 1}
    rows = [
        html.IndexRow(
            item.source.name,
            item.page,
            page_urls(item.source, item.page, counts[item.source.name]),
            entry.lastmod,
            origin.url + page_path(item.source.name, item.page, html.URL_NAMESPACE),
            entry.loc,
        )
        for item, entry in zip(pages, xml_entries, strict=True)
    ]
    etag = weak_etag(HTML.label, "index", *rows)
    return document_response(request, HTML, etag, newest(pages), lambda: html.index_document(rows))


def page_urls(source: BaseSource, page: int, count: int) -> int:
    """The URLs a page of a section of ``count`` rows lists (before any invalid row
    is skipped)."""
    first, _ = source.page_bounds(page)
    rows = min(source.page_size(), count - first)
    return max(rows, 0) * len(source.language_codes())


def html_urlset(
    first: Entry, rest: Generator[Entry], source: BaseSource, page: int
) -> Iterator[bytes]:
    """The HTML table of a page: the same entries as its XML, as many as it holds."""
    origin = Origin.from_settings()
    layout = html.page_layout(source.name, page, origin.url + index_path(html.URL_NAMESPACE))
    # The XML page's URL limit; its byte cap is the XML's, not this document's.
    encoder = Encoder(layout, max_urls=source.url_limit(), max_bytes=sys.maxsize)
    try:
        yield from encoder.stream(chain([first], rest))
    finally:
        rest.close()
