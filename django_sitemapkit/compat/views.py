"""contrib's ``index`` and ``sitemap`` views, same signatures and URLs, answered by
the engine: locations on the base URL (never the request's Host), every entry
checked, the bytes streamed by the encoder, conditional requests answered.

``template_name`` cannot be honoured (no template is rendered) and is ignored;
``content_type`` is honoured.

A document is answered whole, in one ``HttpResponse``, as contrib answers it:
Django's cache middleware (``cache_page``, as Django's documentation wraps
these views) stores it, and ``response.content`` can be read. It is encoded
as it is read, a chunk of items at a time, so only its bytes are held (a
50,000-URL page is some 7 MiB; contrib holds every item, a dict per URL and
the rendered template). A request with no validator to compare has the page
written first and its ``Last-Modified`` and ETag read from the same items on
the way; a conditional one has them first, from one aggregate query for a
``GenericSitemap``, a constant ``lastmod``, or else a pass over the page's
items that reads only their lastmods (``pages.py``), so that a match is a 304
without the page written.

A page with no valid entry is a 404 here, where contrib answers an empty
``<urlset>``: the schema requires at least one ``<url>``, and the engine never
writes a document it would refuse. So a section whose ``items()`` is empty is
also left out of the index (contrib lists its page 1). Pages out of range and
``?p=`` values that are not numbers are contrib's 404s (Django's ``Paginator``
decides, as it does for contrib).
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Iterator, Mapping
from itertools import chain
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponseBase
from django.urls import reverse
from django.views.decorators.http import require_safe

from django_sitemapkit.compat.lastmods import every_lastmod
from django_sitemapkit.compat.pages import ContribPager
from django_sitemapkit.compat.plan import contrib_source
from django_sitemapkit.compat.served import served_site
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.documents import fitting, index_lastmod, left_out, page_runs
from django_sitemapkit.encoding.encoder import Encoder, Entry, urlset
from django_sitemapkit.locations.policy import LocationPolicy, entry_context, fixed_script_prefix
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.pages import LastmodValue, SectionStats
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.values import Horizon
from django_sitemapkit.views.database import checked_index
from django_sitemapkit.views.decorators import chosen_by_host
from django_sitemapkit.views.http import (
    Representation,
    answered,
    as_is,
    document_response,
    weak_etag,
)
from django_sitemapkit.views.streams import page_body as stream

logger = logging.getLogger("django_sitemapkit")
#: The header contrib's views add to every document they answer.
CONTRIB_ROBOTS_TAG = "noindex, noodp, noarchive"
Sitemaps = Mapping[str, Any]
#: A view's sections: each name, and the class or instance it maps to.
Sections = list[tuple[str, Any]]


def contrib_pager(plan: Plan) -> ContribPager:
    pager = plan.pager
    assert isinstance(pager, ContribPager), pager
    return pager


def plans(sections: Sections, site: SitemapSite, request: HttpRequest) -> list[Plan]:
    """The plans of ``sections`` (name, class) on ``site``, for ``request`` (given to a
    class that takes it): contrib lists any path of the host, so the location rule is
    checked from the root, not from the sitemap's directory."""
    return [compile_section(name, declared, site, request) for name, declared in sections]


def compile_section(name: str, declared: Any, site: SitemapSite, request: HttpRequest) -> Plan:
    """The plan of one section (``plans()``)."""
    policy = LocationPolicy(site.origin, fixed_script_prefix())
    return compile_plan(contrib_source(name, declared, request), site, policy=policy)


def sections_of(sitemaps: Sitemaps, section: str | None) -> Sections:
    """The sections of ``sitemaps`` a view answers, read as contrib's views read the
    mapping, and no more: ``items()`` (its index), or ``section in sitemaps`` and
    ``sitemaps[section]``. A project's lazy ``Mapping`` may have no ``len()``, and
    ``list()`` would ask it for one first (a length hint)."""
    if section is None:
        return [(name, declared) for name, declared in sitemaps.items()]
    return [(section, sitemaps[section])]


@require_safe
@chosen_by_host
def index(
    request: HttpRequest,
    sitemaps: Sitemaps,
    template_name: str = "sitemap_index.xml",
    content_type: str = "application/xml",
    sitemap_url_name: str = "django.contrib.sitemaps.views.sitemap",
) -> HttpResponseBase:
    """The sitemap index of the sections of ``sitemaps``, as contrib's ``index``
    view: each section's pages at ``reverse(sitemap_url_name, kwargs={"section":
    ...})``, page 2 on with ``?p=``. ``template_name`` is ignored."""

    def respond() -> HttpResponseBase:
        site = served_site(request)
        origin = site.origin
        listed: list[tuple[str, LastmodValue | None]] = []
        with entry_context():
            for name, declared in sections_of(sitemaps, None):
                try:
                    plan = compile_section(name, declared, site, request)
                    pager = contrib_pager(plan)
                    count = pager.count()
                    lastmods = pager.page_lastmods(SectionStats(count, None, ())) if count else []
                except Exception as exc:
                    left_out(name, "counting its items", exc)
                    continue
                if count == 0:
                    continue  # no page without an entry: see the module's docstring
                url = origin.url + reverse(sitemap_url_name, kwargs={"section": plan.section})
                for number, lastmod in enumerate(lastmods, 1):
                    listed.append((url if number == 1 else f"{url}?p={number}", lastmod))
        if not listed:
            raise Http404("No sitemap section has any items.")
        horizon = Horizon()
        entries = [Entry(loc, index_lastmod(lastmod, horizon)) for loc, lastmod in listed]
        if len(entries) > MAX_URLS:
            logger.error(
                "The sitemap index lists only the first %s of %s pages; raise the "
                "sections' limit so that fewer pages are needed.",
                f"{MAX_URLS:,}",
                f"{len(entries):,}",
            )
        newest = every_lastmod(lastmod for _, lastmod in listed)
        seed = "".join(f"{entry.loc} {entry.lastmod}\n" for entry in entries)
        etag = weak_etag(site, content_type, "compat-index", digest(seed))
        response = document_response(
            request,
            representation(content_type),
            etag,
            newest,
            lambda: checked_index(entries[:MAX_URLS], len(entries)),
            whole=True,
        )
        return with_robots_tag(response)

    return answered(request, "The sitemap index", respond)


@require_safe
@chosen_by_host
def sitemap(
    request: HttpRequest,
    sitemaps: Sitemaps,
    section: str | None = None,
    template_name: str = "sitemap.xml",
    content_type: str = "application/xml",
) -> HttpResponseBase:
    """Page ``?p=`` (default 1) of ``section`` of ``sitemaps``, or of every section
    together without one, as contrib's ``sitemap`` view; 404 for a section not in
    ``sitemaps`` or a page out of range. ``template_name`` is ignored."""
    if section is not None and section not in sitemaps:
        raise Http404(f"No sitemap available for section: {section!r}")
    value = request.GET.get("p", 1)
    document = f"Page {value} of " + (
        "every sitemap section" if section is None else f"sitemap section {section!r}"
    )

    def respond() -> HttpResponseBase:
        site = served_site(request)
        found = plans(sections_of(sitemaps, section), site, request)
        number = 1
        for plan in found:
            number = contrib_pager(plan).number(value)
        if not any(contrib_pager(plan).page_rows(number) for plan in found):
            raise Http404(f"Page {value} has no valid entry.")
        written = None
        if request.method == "GET" and not conditional(request):
            # No validator to compare: the page is written first, and the pagers keep
            # the lastmods of the items they hand out (no first pass).
            for plan in found:
                contrib_pager(plan).records = True
            written = whole(page_body(request, found, number, document))
        stats = [plan.pager.page_stats(number) for plan in found]
        # As contrib: a section with no items on the page (an empty one, in the
        # document of every section) has no lastmod, so the document has none.
        newest = every_lastmod(item.lastmod for item in stats)
        etag = None
        if newest is not None:
            fingerprints = [
                (plan.section, plan.page_size, item.fingerprint)
                for plan, item in zip(found, stats, strict=True)
            ]
            etag = weak_etag(site, content_type, "compat-page", number, *fingerprints)

        def body() -> Iterator[bytes]:
            if written is not None:
                return iter((written,))
            return iter((whole(page_body(request, found, number, document)),))

        response = document_response(
            request, representation(content_type), etag, newest, body, whole=True
        )
        return with_robots_tag(response)

    return answered(request, document, respond)


def conditional(request: HttpRequest) -> bool:
    """Whether ``request`` has a validator to compare (RFC 9110 section 13.1)."""
    return any(
        header in request.META
        for header in (
            "HTTP_IF_MATCH",
            "HTTP_IF_NONE_MATCH",
            "HTTP_IF_MODIFIED_SINCE",
            "HTTP_IF_UNMODIFIED_SINCE",
        )
    )


def whole(chunks: Iterator[bytes]) -> bytes:
    """``chunks`` joined, closed however the reading ends: only the bytes are held,
    once (a buffer grows in place, where ``b"".join()`` keeps every chunk and
    their copy)."""
    buffer = io.BytesIO()
    try:
        for chunk in chunks:
            buffer.write(chunk)
    finally:
        close_iterator(chunks)
    return buffer.getvalue()


def page_body(
    request: HttpRequest, found: list[Plan], number: int, document: str
) -> Iterator[bytes]:
    """Page ``number`` of each plan in turn; a 404 if none has a valid entry."""
    layout = urlset(
        tuple(sorted({prefix for plan in found for prefix in plan.document.extensions}))
    )
    runs = chain.from_iterable(
        fitting(page_runs(plan, number, None, tally), plan.section, layout, tally)
        for plan, tally in ((plan, Tally()) for plan in found)
    )

    def on_cut(encoder: Encoder) -> None:
        logger.error(
            "%s was cut after %s URLs: the next one would take it past %s URLs or %s bytes "
            "(SITEMAPKIT_MAX_BYTES). Lower the section's limit so every page fits.",
            document,
            f"{encoder.count:,}",
            f"{MAX_URLS:,}",
            f"{conf.MAX_BYTES:,}",
        )

    return stream(
        request,
        runs,
        layout,
        max_urls=MAX_URLS,
        max_bytes=conf.MAX_BYTES,
        document=document,
        on_cut=on_cut,
        streamed=False,
    )


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def representation(content_type: str) -> Representation:
    return Representation("compat", "", content_type, as_is)


def with_robots_tag(response: HttpResponseBase) -> HttpResponseBase:
    """contrib's ``X-Robots-Tag`` unless the project set ``SITEMAPKIT_X_ROBOTS_TAG``
    to another: the drop-in answers as contrib does, whatever this app's default."""
    if getattr(settings, "SITEMAPKIT_X_ROBOTS_TAG", None) is None:
        response["X-Robots-Tag"] = CONTRIB_ROBOTS_TAG
    return response
