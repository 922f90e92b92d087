"""contrib's ``index`` and ``sitemap`` views, same signatures and URLs, answered by
the engine: locations on ``SITEMAPKIT_BASE_URL`` (never the request's Host), every
entry checked, the bytes written by the encoder, conditional requests answered.

``template_name`` cannot be honoured (no template is rendered) and is ignored;
``content_type`` is honoured.

A page with no valid entry is a 404 here, where contrib answers an empty
``<urlset>``: the schema requires at least one ``<url>``, and the engine never
writes a document it would refuse. So a section whose ``items()`` is empty is
also left out of the index (contrib lists its page 1). Pages out of range and
``?p=`` values that are not numbers are contrib's 404s (Django's ``Paginator``
decides, as it does for contrib).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from django.http import Http404, HttpRequest, HttpResponseBase
from django.urls import reverse
from django.views.decorators.http import require_safe

from django_sitemapkit.compat.entries import Made
from django_sitemapkit.compat.sections import ContribSection, page_number
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.encoder import URLSET, Encoder, Entry, Lines, entry_lines, url_element
from django_sitemapkit.locations import LocationPolicy, Origin, entry_context, fixed_script_prefix
from django_sitemapkit.pipeline import index_lastmod
from django_sitemapkit.sources.pages import LastmodValue
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.values import newest_lastmod
from django_sitemapkit.views.database import checked_index
from django_sitemapkit.views.http import (
    Representation,
    answered,
    as_is,
    document_response,
    weak_etag,
)

logger = logging.getLogger("django_sitemapkit")
#: The header contrib's views add to every document they answer.
CONTRIB_ROBOTS_TAG = "noindex, noodp, noarchive"
Sitemaps = Mapping[str, Any]


@require_safe
def index(
    request: HttpRequest,
    sitemaps: Sitemaps,
    template_name: str = "sitemap_index.xml",
    content_type: str = "application/xml",
    sitemap_url_name: str = "django.contrib.sitemaps.views.sitemap",
) -> HttpResponseBase:
    def respond() -> HttpResponseBase:
        origin = Origin.from_settings()
        listed: list[tuple[str, LastmodValue | None]] = []
        with entry_context():
            for name, declared in sitemaps.items():
                section = ContribSection.open(name, declared, origin)
                if section.count == 0:
                    continue  # no page without an entry: see the module's docstring
                url = origin.url + reverse(sitemap_url_name, kwargs={"section": name})
                for number, lastmod in enumerate(section.page_lastmods(), 1):
                    listed.append((url if number == 1 else f"{url}?p={number}", lastmod))
        if not listed:
            raise Http404("No sitemap section has any items.")
        entries = [Entry(loc, index_lastmod(lastmod)) for loc, lastmod in listed]
        if len(entries) > MAX_URLS:
            logger.error(
                "The sitemap index lists only the first %s of %s pages; raise the "
                "sections' limit so that fewer pages are needed.",
                f"{MAX_URLS:,}",
                f"{len(entries):,}",
            )
        newest = every_lastmod(lastmod for _, lastmod in listed)
        seed = "".join(f"{entry.loc} {entry.lastmod}\n" for entry in entries)
        etag = weak_etag(content_type, "compat-index", digest(seed))
        response = document_response(
            request, representation(content_type), etag, newest, lambda: checked_index(entries)
        )
        return with_robots_tag(response)

    return answered(request, "The sitemap index", respond)


@require_safe
def sitemap(
    request: HttpRequest,
    sitemaps: Sitemaps,
    section: str | None = None,
    template_name: str = "sitemap.xml",
    content_type: str = "application/xml",
) -> HttpResponseBase:
    if section is not None and section not in sitemaps:
        raise Http404(f"No sitemap available for section: {section!r}")
    names = list(sitemaps) if section is None else [section]
    value = request.GET.get("p", 1)
    document = f"Page {value} of " + (
        "every sitemap section" if section is None else f"sitemap section {section!r}"
    )

    def respond() -> HttpResponseBase:
        lines, newest = page_lines(sitemaps, names, value)
        etag = weak_etag(content_type, "compat-page", digest("".join(lines[0])))
        response = document_response(
            request, representation(content_type), etag, newest, lambda: encoded(lines, document)
        )
        return with_robots_tag(response)

    return answered(request, document, respond)


def page_lines(
    sitemaps: Sitemaps, names: list[str], value: object
) -> tuple[Lines, LastmodValue | None]:
    """The lines of page ``value`` of the sections ``names``, in order, and the newest
    lastmod if every entry has one.

    The page is read once, before the headers, as contrib does: its
    ``Last-Modified`` and ETag need every entry. The items are read a chunk
    at a time; only the lines (at most ``limit`` per section) are kept.
    """
    origin = Origin.from_settings()
    # contrib lists any path of the host; the location rule is checked from the root.
    policy = LocationPolicy(origin, fixed_script_prefix())
    made: list[Made] = []
    with entry_context():
        for name in names:
            opened = ContribSection.open(name, sitemaps[name], origin)
            number = page_number(opened.paginator, value)
            tally = Tally()
            made.extend(opened.entries(number, policy, tally))
            tally.end_page(number)
    if not made:
        logger.error(
            "Page %s of sitemap section(s) %s has no valid entry (see the warnings above, if "
            "any); it is answered with 404.",
            value,
            ", ".join(map(repr, names)),
        )
        raise Http404(f"Page {value} has no valid entry.")
    newest = every_lastmod(item.lastmod for item in made)
    return entry_lines((item.entry for item in made), url_element), newest


def encoded(lines: Lines, document: str) -> Iterator[bytes]:
    encoder = Encoder(URLSET, max_urls=MAX_URLS, max_bytes=conf.MAX_BYTES)
    yield from encoder.stream([lines])
    if encoder.cut:
        logger.error(
            "%s was cut after %s URLs: the next one would take it past %s URLs or %s bytes "
            "(SITEMAPKIT_MAX_BYTES). Lower the section's limit so every page fits.",
            document,
            f"{encoder.count:,}",
            f"{MAX_URLS:,}",
            f"{conf.MAX_BYTES:,}",
        )


def every_lastmod(values: Iterable[LastmodValue | None]) -> LastmodValue | None:
    """The newest of ``values`` if none is missing (contrib's rule for ``Last-Modified``)."""
    found = list(values)
    return None if None in found else newest_lastmod(found)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def representation(content_type: str) -> Representation:
    return Representation("compat", "", content_type, as_is)


def with_robots_tag(response: HttpResponseBase) -> HttpResponseBase:
    """contrib's ``X-Robots-Tag`` unless ``SITEMAPKIT_X_ROBOTS_TAG`` set another."""
    if "X-Robots-Tag" not in response:
        response["X-Robots-Tag"] = CONTRIB_ROBOTS_TAG
    return response
