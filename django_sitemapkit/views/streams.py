"""A page as a response body: the views' side of the one document assembly
(``documents.open_document()``), for the database views and the drop-in alike.

A page whose rows give no valid entry is a 404, logged; a HEAD request gets
its answer without a byte of the body; a failure after the first byte is
logged, since no status can say it any more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from django.http import Http404, HttpRequest

from django_sitemapkit.documents import encoded, open_document
from django_sitemapkit.encoding.encoder import Encoder, Layout, Lines
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.views.http import ClosingStream

logger = logging.getLogger("django_sitemapkit")


def page_body(
    request: HttpRequest,
    runs: Iterator[Lines],
    layout: Layout,
    *,
    max_urls: int,
    max_bytes: int,
    document: str,
    on_cut: Callable[[Encoder], None],
    streamed: bool = True,
) -> Iterator[bytes]:
    """The body of ``document`` (``"Page 2 of sitemap source 'posts'"``), streamed from
    ``runs``; ``on_cut`` says what was lost if the encoder cut it. A body that is
    not ``streamed`` is read whole before any byte is sent, so a failure is the
    response's status, not a truncated document to log."""
    opened = open_document(runs, layout, max_urls=max_urls, max_bytes=max_bytes)
    if opened is None:
        logger.error(
            "%s has no valid entry (see the warnings above); it is answered with 404.", document
        )
        raise Http404(f"{document} has no valid entry.")
    if request.method == "HEAD":
        # HEAD has its answer: release the rows (and their cursor) now.
        close_iterator(opened.runs)
        return iter(())
    chunks = encoded(opened, on_cut)
    if streamed:
        chunks = failures_logged(chunks, opened.encoder, document)
    return ClosingStream(chunks, runs)


def failures_logged(chunks: Iterator[bytes], encoder: Encoder, document: str) -> Iterator[bytes]:
    try:
        yield from chunks
    except Exception as exc:
        # Headers and part of the body are sent: no status can say it now. The
        # encoder writes no closing tag after an error, and the server closes
        # the connection (without the last chunk of a chunked body), so the
        # client sees a truncated document, never a short but complete one.
        logger.exception(
            "%s failed after %s URLs were encoded (%s: %s); the response ends there, without "
            "its closing tag.",
            document,
            f"{encoder.count:,}",
            type(exc).__name__,
            exc,
        )
        raise
