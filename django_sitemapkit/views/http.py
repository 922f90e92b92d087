"""HTTP for every sitemap document: representations, conditional requests, the 503
for a database that is down, and streaming under ASGI."""

from __future__ import annotations

import hashlib
import io
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import NamedTuple, cast

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError
from django.http import (
    FileResponse,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding import html
from django_sitemapkit.encoding.compression import gzip_stream
from django_sitemapkit.locations.policy import fixed_script_prefix
from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.registry import WHERE_SOURCES_ARE
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.framework import UnusableSite
from django_sitemapkit.sites.robots_txt import RobotsUnavailable
from django_sitemapkit.sources.pages import LastmodValue
from django_sitemapkit.values import http_timestamp, newest_lastmod
from django_sitemapkit.views import serving

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
# The HTML pages for people (encoding/html.py); never a built file.
HTML = Representation("html", "", html.CONTENT_TYPE, as_is)
# The .xml.gz URLs: the body is a gzip file (RFC 6713), not XML with a content
# coding, so no Content-Encoding is sent and nothing decodes it on the way.
GZIP = Representation("gzip", GZIP_SUFFIX, serving.GZIP_CONTENT_TYPE, gzipped)


def answered(
    request: HttpRequest, document: str, respond: Callable[[], HttpResponseBase]
) -> HttpResponseBase:
    """``respond()``, or a 503 if the database or the storage of the built files failed
    before the first byte, the current Site cannot give the base URL, or the robots.txt
    ``SITEMAPKIT_ROBOTS = "exclude"`` needs cannot be read; then made fit for the
    server (see ``for_server``). The one place any becomes a 503."""
    try:
        response = respond()
    except (OperationalError, InterfaceError):
        logger.exception(
            "%s could not be read from the database; it is answered with 503 and "
            "Retry-After. Check that the database is reachable, or serve built files "
            "(SITEMAPKIT_SERVE = 'files').",
            document,
        )
        response = unavailable(request)
    except serving.StorageUnavailable as exc:
        # A storage server that is down or refuses (the error is its client
        # library's, which says which): a crawler comes back, as for a database.
        logger.error(
            "%s could not be read: %s. It is answered with 503 and Retry-After.",
            document,
            exc,
            exc_info=exc.error,
        )
        response = unavailable(request)
    except UnusableSite as exc:
        # A Site edited in the admin, without a deploy, so without the system
        # checks: the message says all there is, and a traceback would add only
        # noise. Mended in the admin too, so a crawler is asked to come back.
        logger.error(
            "%s cannot be written: %s It is answered with 503 and Retry-After.", document, exc
        )
        response = unavailable(request)
    except RobotsUnavailable as exc:
        # SITEMAPKIT_ROBOTS = "exclude" lists no URL it cannot judge, and leaving them
        # all out would empty the sitemap: a crawler comes back, as it does for a
        # robots.txt that fails (RFC 9309 section 2.3.1.4).
        logger.error(
            "%s cannot be written under SITEMAPKIT_ROBOTS = 'exclude': %s It is answered "
            "with 503 and Retry-After.",
            document,
            exc,
        )
        response = unavailable(request)
    return for_server(request, response)


def unavailable(request: HttpRequest) -> HttpResponse:
    """A 503: a crawler retries later (RFC 9110 section 15.6.4), where a 500 would
    read as a broken site.

    Only for what can mend without a deploy: a database that is down or went
    away (lost connection, timeout, too many clients), a storage that fails
    (its server unreachable, say), a Site whose domain is fixed in the
    admin, or a robots.txt that fails. A missing table or a bad query is a bug
    that retrying will not mend, and stays a 500.
    """
    return HttpResponse(
        b"" if request.method == "HEAD" else b"The sitemap is unavailable; try again later.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
        headers={"Retry-After": str(RETRY_AFTER)},
    )


#: The body of every sitemap URL's 404 while no source is registered.
NO_SOURCES = f"No sitemap source is registered, so there is no sitemap. {WHERE_SOURCES_ARE}"


def no_sources(request: HttpRequest) -> HttpResponse:
    """The 404 of a project with no source registered: logged, and said in the body.

    The body is written here, not left to the project's 404 page (which shows
    no reason unless DEBUG is on): whoever meets this is setting the project
    up, and "not found" alone would send them looking at the URLconf. The
    text says nothing the README does not.
    """
    logger.warning("%s", NO_SOURCES)
    return HttpResponse(
        b"" if request.method == "HEAD" else f"{NO_SOURCES}\n".encode(),
        status=404,
        content_type="text/plain; charset=utf-8",
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


def document_response(
    request: HttpRequest,
    representation: Representation,
    etag: str | None,
    lastmod: LastmodValue | None,
    body: Callable[[], Iterator[bytes]],
    *,
    whole: bool = False,
) -> HttpResponseBase:
    """A 304 (or 412) decided before any row is read; else HEAD's headers or GET's stream,
    or with ``whole`` GET's body in one ``HttpResponse``: the drop-in's, which Django's
    cache middleware stores as it stores contrib's (it never stores a stream)."""
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
    if whole:
        return HttpResponse(representation.encode(content), headers=head.headers)
    return StreamingHttpResponse(representation.encode(content), headers=head.headers)


def last_modified(lastmod: LastmodValue) -> int | None:
    """``Last-Modified`` in seconds since the epoch, or ``None`` for a value that is
    no lastmod: not a date or datetime (the ``MAX()`` of a text field, say; each
    row holding one is skipped and logged when the entries are written), or one
    that cannot be expressed in UTC (a naive 9999-12-31 23:00 west of Greenwich).
    ``newest_lastmod()`` is the rule, as for the index's.

    Never later than now: RFC 9110 section 8.8.2.1 has a future time replaced by
    the time of the response, or an ``If-Modified-Since`` of that future date
    would answer 304 to every change made before it.
    """
    value = newest_lastmod((lastmod,))
    if value is None:
        return None
    return min(int(http_timestamp(value)), int(time.time()))


def weak_etag(site: SitemapSite, *parts: object) -> str:
    """A weak validator (RFC 9110 section 8.8.1): equal when the document's data is
    equal, as seen by what the database can tell cheaply, and what else shapes
    its bytes is unchanged: the settings, the script prefix and the language
    the URLs are reversed in (LANGUAGE_CODE, whatever the request's)."""
    seed = repr(
        (
            # The origin, not the setting: a Site's new domain is a new document.
            site.base_url,
            conf.MAX_BYTES,
            conf.GZIP_LINKS,
            fixed_script_prefix(),
            settings.LANGUAGE_CODE,
            *parts,
        )
    ).encode()
    return f'W/"{hashlib.blake2b(seed, digest_size=12).hexdigest()}"'
