"""robots.txt: the line that announces the sitemap index, and a minimal file for
projects that have none."""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import conf
from django_sitemapkit.locations.policy import index_path
from django_sitemapkit.names import INDEX_FILENAME
from django_sitemapkit.registry import NOT_INSTALLED, installed, registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.framework import UnusableSite
from django_sitemapkit.sites.hosts import (
    UnknownHost,
    all_sites,
    default_site,
    several_sites,
    site_for_request,
    site_named,
)
from django_sitemapkit.views import serving
from django_sitemapkit.views.decorators import chosen_by_host

logger = logging.getLogger("django_sitemapkit")

# RFC 9309 section 2.3: robots.txt is UTF-8 plain text.
CONTENT_TYPE = "text/plain; charset=utf-8"


def sitemap_lines(request: HttpRequest | None = None, *, site: str | None = None) -> list[str]:
    """``Sitemap:`` lines for a robots.txt (sitemaps.org protocol, "Informing search
    engine crawlers"): the absolute URL of the index, built on the base URL and
    never on the request, like every location in the sitemap.

    With several sites (``SITEMAPKIT_SITES``) each host's robots.txt names its own
    index: pass the ``request`` (its host selects the site) or the ``site``'s name.
    A host no site has gets no line.

    None while the index would answer 404 for want of a registered source, or
    while the current Site cannot give the base URL: a crawler told of a dead
    index keeps asking for it, and may report the site for it. In the file
    modes a built index is served whatever is registered, so it is still named
    if it is there (looked for only in that case). Without the app in
    ``INSTALLED_APPS`` there is none either, and the error log says so.
    """
    if not installed():
        logger.error("robots.txt names no sitemap: %s", NOT_INSTALLED)
        return []
    try:
        chosen = chosen_site(request, site)
    except UnusableSite as exc:
        # The rules are still served: a robots.txt that fails (5xx) makes
        # crawlers stop crawling the whole site until it answers again.
        logger.error("robots.txt names no sitemap: %s", exc)
        return []
    except UnknownHost:
        return []
    line = f"Sitemap: {chosen.base_url}{index_path()}"
    if registry.sections(chosen):
        return [line]
    try:
        built = built_index_exists(chosen)
    except serving.StorageUnavailable as exc:
        # As above: the rules are served, whatever the storage does.
        logger.error("robots.txt names no sitemap: the built index was not found: %s.", exc)
        return []
    return [line] if built else []


def chosen_site(request: HttpRequest | None, name: str | None) -> SitemapSite:
    if name is not None:
        found = site_named(name)
        if found is None:
            known = ", ".join(repr(site.name) for site in all_sites()) or "none"
            raise ValueError(f"sitemap_lines(site={name!r}): no such site; the sites are {known}.")
        return found
    if request is not None:
        return site_for_request(request)
    if several_sites():
        raise TypeError(
            "sitemap_lines() needs the request (or site=NAME) when SITEMAPKIT_SITES lists "
            "several sites: each host's robots.txt names its own index."
        )
    return default_site()


def built_index_exists(site: SitemapSite) -> bool:
    return conf.SERVE in serving.FILE_MODES and serving.built_files(site).exists(INDEX_FILENAME)


@require_safe
@chosen_by_host
def robots_txt(request: HttpRequest) -> HttpResponse:
    """A robots.txt that allows every crawler everywhere and names the sitemap index
    (if it can be answered: see ``sitemap_lines()``)."""
    # RFC 9309 section 2.2.2: a URL no rule matches is allowed, and an empty
    # Disallow matches none. Section 2.2.4: Sitemap is a record of its own,
    # read whatever the user agent. Without it the file is still a valid
    # robots.txt, and still a 200: a 404 for robots.txt would let crawlers
    # everywhere too (section 2.3.1.3), and the rules are not the sitemap's to
    # take away because the sitemap is missing.
    sitemaps = sitemap_lines(request)
    lines = ["User-agent: *", "Disallow:", *([""] if sitemaps else []), *sitemaps]
    return HttpResponse("".join(f"{line}\n" for line in lines), content_type=CONTENT_TYPE)
