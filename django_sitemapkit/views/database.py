"""The sitemap documents answered from the database, through the document pipeline."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response

from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.documents import (
    UNAVAILABLE,
    Section,
    encoded,
    fitting,
    index_entries,
    index_runs,
    indexed_pages,
    open_document,
    page_runs,
    sections,
)
from django_sitemapkit.encoding.encoder import (
    SITEMAPINDEX,
    Encoder,
    Entry,
)
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.disallowed import exclusion_fingerprint
from django_sitemapkit.sources.pages import NO_PAGE, PageStats
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.sources.starts import start_of
from django_sitemapkit.sources.unanswered import note, signature, unanswered
from django_sitemapkit.values import newest_lastmod
from django_sitemapkit.views.http import (
    Representation,
    document_response,
    weak_etag,
)
from django_sitemapkit.views.streams import page_body

logger = logging.getLogger("django_sitemapkit")


def listed_sections(site: SitemapSite) -> list[Section]:
    return listed(sections(site))


def listed(every: list[Section]) -> list[Section]:
    found = [section for section in every if section.stats.rows]
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
        signature(site.base_url),
    )


def unanswered_pages(site: SitemapSite, found: list[Section]) -> tuple[tuple[str, int], ...]:
    """The pages of ``found`` a view could not answer (``sources/unanswered.py``), which
    the index does not list, and which its validator therefore names."""
    return tuple(
        (plan.section, page)
        for plan, stats, _ in found
        for page in sorted(
            unanswered(site.base_url, plan.section, plan.page_size, stats.fingerprint)
        )
    )


def database_index(
    request: HttpRequest, site: SitemapSite, representation: Representation
) -> HttpResponseBase:
    def body(found: list[Section]) -> Iterator[bytes]:
        gone = set(unanswered_pages(site, found))
        listed_pages = [p for p in indexed_pages(found) if (p.section, p.page) not in gone]
        entries = index_entries(listed_pages, site.origin)
        if not entries:
            raise Http404("No page of any sitemap section can be answered.")
        if len(entries) > MAX_URLS:
            logger.error(
                "The sitemap index lists only the first %s of %s pages; raise SITEMAPKIT_LIMIT "
                "or a source's limit so that fewer pages are needed.",
                f"{MAX_URLS:,}",
                f"{len(entries):,}",
            )
        return checked_index(entries[:MAX_URLS], len(entries))

    return index_response(request, site, representation, body)


def index_response(
    request: HttpRequest,
    site: SitemapSite,
    representation: Representation,
    body: Callable[[list[Section]], Iterator[bytes]],
) -> HttpResponseBase:
    """An index, validated by each section's aggregate, or with ``SITEMAPKIT_CHANGES`` by
    the change record's version (``changes/index.py``)."""
    # Here, not at the top: a URLconf imports the views even where the app is not
    # installed (sitemapkit.E064 says so), and the change record is a model.
    from django_sitemapkit.changes.index import versioned_index

    versioned = versioned_index(site)
    if versioned is None:
        found = listed_sections(site)
        etag = sections_etag(site, representation.label, found)
    else:
        etag = weak_etag(
            site,
            representation.label,
            "index",
            *versioned.validated_by(),
            signature(site.base_url),
        )
        kept = versioned.cached()
        if kept is None and is_not_modified(request, etag):
            # Answered from the version alone: a 304 carries no Last-Modified,
            # which is representation metadata (RFC 9110 section 15.4.5), and the
            # newest lastmod is known only once the sections are read.
            return document_response(request, representation, etag, None, lambda: iter(()))
        found = listed(versioned.sections() if kept is None else kept)
    lastmod = newest_lastmod(item.stats.lastmod for item in found)
    return document_response(request, representation, etag, lastmod, lambda: body(found))


def is_not_modified(request: HttpRequest, etag: str) -> bool:
    """Whether ``If-None-Match`` alone answers the request 304 (or 412): without
    ``If-Unmodified-Since``, the only condition a Last-Modified could change."""
    if "HTTP_IF_NONE_MATCH" not in request.META or "HTTP_IF_UNMODIFIED_SINCE" in request.META:
        return False
    head = HttpResponse()
    return get_conditional_response(request, etag=etag, response=head) is not head


def checked_index(entries: list[Entry], pages: int) -> Iterator[bytes]:
    """The index of ``entries`` (the first of ``pages``), logging an error if
    ``SITEMAPKIT_MAX_BYTES`` cut it short."""

    def on_cut(encoder: Encoder) -> None:
        logger.error(
            "The sitemap index was cut after %s of %s pages: the next one would take it "
            "past %s bytes (SITEMAPKIT_MAX_BYTES). Raise SITEMAPKIT_MAX_BYTES, or "
            "SITEMAPKIT_LIMIT so that fewer pages are needed.",
            f"{encoder.count:,}",
            f"{pages:,}",
            f"{conf.MAX_BYTES:,}",
        )

    document = open_document(
        index_runs(entries), SITEMAPINDEX, max_urls=MAX_URLS, max_bytes=conf.MAX_BYTES
    )
    assert document is not None, "an index lists at least one page"
    return encoded(document, on_cut)


def database_page(
    request: HttpRequest,
    site: SitemapSite,
    representation: Representation,
    section: str,
    page: int,
) -> HttpResponseBase:
    source = registry.get(section, site)
    if source is None:
        raise Http404(f"No sitemap section named {section!r} on site {site.name!r}.")
    plan = compile_plan(source, site)
    stats = page_stats(plan, page)
    if stats.rows == 0:
        raise Http404(f"Sitemap section {section!r} has no page {page}.")
    etag = None
    if stats.lastmod is not None:
        # And the robots.txt SITEMAPKIT_ROBOTS = "exclude" leaves URLs out by.
        excluding = exclusion_fingerprint(site.origin)
        etag = weak_etag(
            site,
            representation.label,
            section,
            page,
            plan.page_size,
            *stats.fingerprint,
            *(() if excluding is None else (excluding,)),
        )

    def body() -> Iterator[bytes]:
        # A tally, so that rows skipped for one reason are logged once (skips.py).
        tally = Tally()
        runs = fitting(
            page_runs(plan, page, stats.start, tally), plan.section, plan.document, tally
        )
        try:
            return page_body(
                request,
                runs,
                plan.document,
                max_urls=plan.url_limit,
                max_bytes=conf.MAX_BYTES,
                document=f"Page {page} of sitemap source {section!r}",
                on_cut=lambda encoder: page_cut(encoder, plan.section, page),
            )
        except UNAVAILABLE:
            raise  # every page's, not this one's (the one 503)
        except Exception:
            # No valid entry (a 404), or the project's code raised on its rows: the
            # index leaves the page out until the section's rows change.
            fingerprint = plan.pager.section_stats().fingerprint
            note(site.base_url, plan.section, plan.page_size, fingerprint, page)
            raise

    return document_response(request, representation, etag, stats.lastmod, body)


def page_stats(plan: Plan, page: int) -> PageStats:
    """The page's aggregate; a page after the first of a queryset section starts at a
    key kept per process (``sources/starts.py``): under the change record's version
    where it covers the section, else under the section's own validator, or sought."""
    pager = plan.queryset
    if pager is None or pager.key is None or page == 1:
        return plan.pager.page_stats(page)
    # Here, not at the top: see index_response().
    from django_sitemapkit.changes.index import page_validator

    start = start_of(pager, page, page_validator(plan))
    return NO_PAGE if start is None else pager.page_stats(page, start)


def page_cut(encoder: Encoder, section: str, page: int) -> None:
    logger.error(
        "Page %s of sitemap source %r was cut after %s URLs: the next one would take it "
        "past %s bytes (SITEMAPKIT_MAX_BYTES). Set limit = %s on the source so every "
        "page fits.",
        page,
        section,
        f"{encoder.count:,}",
        f"{conf.MAX_BYTES:,}",
        encoder.count,
    )
