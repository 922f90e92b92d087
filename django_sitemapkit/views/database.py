"""The sitemap documents answered from the database, through the document pipeline."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

from django.http import Http404, HttpRequest, HttpResponseBase

from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.documents import (
    Section,
    first_run,
    fitting,
    index_entries,
    index_runs,
    indexed_pages,
    page_runs,
    sections,
)
from django_sitemapkit.encoding import html
from django_sitemapkit.encoding.encoder import (
    SITEMAPINDEX,
    Encoder,
    Entry,
    Layout,
    Lines,
    url_element,
)
from django_sitemapkit.locations.policy import index_path, page_path
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.values import newest_lastmod
from django_sitemapkit.views.http import (
    HTML,
    ClosingStream,
    Representation,
    document_response,
    weak_etag,
)

logger = logging.getLogger("django_sitemapkit")


def listed_sections(site: SitemapSite) -> list[Section]:
    found = [section for section in sections(site) if section.stats.rows]
    if not found:
        raise Http404("No sitemap section has any rows.")
    return found


def sections_etag(site: SitemapSite, label: str, found: list[Section]) -> str:
    """The index's validator, from each section's aggregate alone: no per-page work."""
    return weak_etag(
        site,
        label,
        "index",
        *((item.plan.section, item.plan.page_size, item.stats.fingerprint) for item in found),
    )


def database_index(
    request: HttpRequest, site: SitemapSite, representation: Representation
) -> HttpResponseBase:
    found = listed_sections(site)
    lastmod = newest_lastmod(item.stats.lastmod for item in found)

    def body() -> Iterator[bytes]:
        entries = index_entries(indexed_pages(found), site.origin)
        if len(entries) > MAX_URLS:
            logger.error(
                "The sitemap index lists only the first %s of %s pages; raise SITEMAPKIT_LIMIT "
                "or a source's limit so that fewer pages are needed.",
                f"{MAX_URLS:,}",
                f"{len(entries):,}",
            )
        return checked_index(entries)

    etag = sections_etag(site, representation.label, found)
    return document_response(request, representation, etag, lastmod, body)


def checked_index(entries: list[Entry]) -> Iterator[bytes]:
    """The index's bytes, logging an error if ``SITEMAPKIT_MAX_BYTES`` cut it short."""
    encoder = Encoder(SITEMAPINDEX, max_bytes=conf.MAX_BYTES)
    yield from encoder.stream(index_runs(entries))
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


def database_page(
    request: HttpRequest,
    site: SitemapSite,
    representation: Representation,
    section: str,
    page: int,
    html_page: bool = False,
) -> HttpResponseBase:
    source = registry.get(section, site)
    if source is None:
        raise Http404(f"No sitemap section named {section!r} on site {site.name!r}.")
    plan = compile_plan(source, site)
    stats = plan.pager.page_stats(page)
    if stats.rows == 0:
        raise Http404(f"Sitemap section {section!r} has no page {page}.")
    etag = None
    if stats.lastmod is not None:
        etag = weak_etag(
            site, representation.label, section, page, plan.page_size, *stats.fingerprint
        )
    head_only = request.method == "HEAD"

    def body() -> Iterator[bytes]:
        origin = site.origin
        element = html.url_rows(origin.url) if html_page else url_element
        # A tally, so that rows skipped for one reason are logged once (skips.py).
        tally = Tally()
        runs = fitting(
            page_runs(plan, page, stats.start, tally, element), plan.section, plan.document, tally
        )
        started = first_run(runs)
        if started is None:
            logger.error(
                "Page %s of sitemap source %r has no valid entry (see the warnings above); "
                "it is answered with 404.",
                page,
                section,
            )
            raise Http404(f"Sitemap section {section!r} page {page} has no valid entry.")
        if head_only:
            # HEAD has its answer: release the rows (and their cursor) now.
            close_iterator(started)
            return iter(())
        layout: Layout = plan.document
        max_bytes = conf.MAX_BYTES
        if html_page:
            index_url = origin.url + index_path(html.URL_NAMESPACE)
            # The XML page's URL limit; its byte cap is the XML's, not this document's.
            layout = html.page_layout(section, page, index_url, origin.url)
            max_bytes = sys.maxsize
        encoder = Encoder(layout, max_urls=plan.url_limit, max_bytes=max_bytes)
        return ClosingStream(checked_page(encoder, started, plan, page), runs)

    return document_response(request, representation, etag, stats.lastmod, body)


def checked_page(encoder: Encoder, runs: Iterator[Lines], plan: Plan, page: int) -> Iterator[bytes]:
    """The page's bytes, logging an error if ``SITEMAPKIT_MAX_BYTES`` cut it short."""
    try:
        yield from encoder.stream(runs)
    except Exception as exc:
        # Headers and part of the body are sent: no status can say it now. The
        # encoder writes no closing tag after an error, and the server closes
        # the connection (without the last chunk of a chunked body), so the
        # client sees a truncated document, never a short but complete one.
        logger.exception(
            "Page %s of sitemap source %r failed after %s URLs were encoded (%s: %s); the "
            "response ends there, without its closing tag.",
            page,
            plan.section,
            f"{encoder.count:,}",
            type(exc).__name__,
            exc,
        )
        raise
    finally:
        # Release the rows (and their cursor) now, even if the client left.
        close_iterator(runs)
    if encoder.cut and encoder.count < plan.url_limit:
        logger.error(
            "Page %s of sitemap source %r was cut after %s URLs: the next one would take it "
            "past %s bytes (SITEMAPKIT_MAX_BYTES). Set limit = %s on the source so every "
            "page fits.",
            page,
            plan.section,
            f"{encoder.count:,}",
            f"{conf.MAX_BYTES:,}",
            encoder.count,
        )


def database_html_index(request: HttpRequest, site: SitemapSite) -> HttpResponseBase:
    found = listed_sections(site)
    origin = site.origin
    lastmod = newest_lastmod(item.stats.lastmod for item in found)

    def body() -> Iterator[bytes]:
        pages = indexed_pages(found)
        counts = {item.plan.section: item for item in found}
        rows = [
            html.IndexRow(
                entry_page.section,
                entry_page.page,
                page_urls(counts[entry_page.section], entry_page.page),
                entry.lastmod,
                origin.url + page_path(entry_page.section, entry_page.page, html.URL_NAMESPACE),
                entry.loc,
            )
            for entry_page, entry in zip(pages, index_entries(pages, origin), strict=True)
        ]
        return html.index_document(rows, origin.url)

    etag = sections_etag(site, HTML.label, found)
    return document_response(request, HTML, etag, lastmod, body)


def page_urls(section: Section, page: int) -> int:
    """The URLs a page lists (before any invalid row is skipped)."""
    size = section.plan.page_size
    rows = min(size, section.stats.rows - (page - 1) * size)
    return max(rows, 0) * len(section.plan.languages)
