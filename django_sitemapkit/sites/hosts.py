"""The sites a project serves sitemaps for, and the choice of one for a request.

A site is a name and a base URL: the one host of every document it is served
(sitemaps.org, "Sitemap file location"). The set is configured, never learned
from a request: ``SITEMAPKIT_SITES`` maps names to base URLs, or, set to
``"django.contrib.sites"`` (or ``"wagtail"``), makes each ``Site`` row (or Wagtail
``Site``) a site of its own. Without
it the project has one site, on ``SITEMAPKIT_BASE_URL`` or the current Site.

A request's host selects a site and never supplies one. ``get_host()`` first
holds it to ``ALLOWED_HOSTS`` (a 400 otherwise); it is then compared with the
configured hosts, and what the documents are written on is the site's own base
URL, never the request's spelling of it (case, port, trailing dot). A host no
site has gets a 404, never another site's sitemap; only the drop-in's views,
as contrib's do, answer it with the site of ``SITE_ID``'s ``Site`` row. With one
site the host is not read at all, as before there were several.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import Http404, HttpRequest
from django.http.request import split_domain_port

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import EXAMPLE, Origin, base_url_problem
from django_sitemapkit.sites.configured import (
    SitemapSite,
    framework_site_for,
    framework_sites,
    framework_variant,
    setting_site_for,
    setting_sites,
)
from django_sitemapkit.sites.framework import (
    SITES_APP,
    UnusableSite,
    current_site,
    site_base_url,
    site_id,
    uses_site,
)
from django_sitemapkit.sites.wagtail import wagtail_site_for, wagtail_sites, wagtail_variant

logger = logging.getLogger("django_sitemapkit")

#: The name of a project's only site.
DEFAULT_NAME = "default"


class UnknownHost(Http404):
    """A request for a host no configured site has."""


def several_sites() -> bool:
    """Whether ``SITEMAPKIT_SITES`` is set: every document then belongs to one of them."""
    return conf.raw("SITES") is not None


def default_site() -> SitemapSite:
    """A project's only site: ``SITEMAPKIT_BASE_URL``, else ``SITEMAPKIT_SITE_SCHEME`` and
    the current Site's domain, read on every call and never from a request."""
    if several_sites():
        raise ImproperlyConfigured(
            "SITEMAPKIT_SITES lists several sites, so a sitemap is built for one of them; "
            "name it (site=..., --site NAME), or pass the request it answers."
        )
    if uses_site():
        row = current_site()
        return SitemapSite(DEFAULT_NAME, Origin.from_url(site_base_url(row)), row)
    value = conf.BASE_URL
    problem = base_url_problem(value)
    if problem is not None:
        fix = f"set it to the scheme and host the site is served on, such as {EXAMPLE}"
        if problem == "is not set":
            fix += (
                ", add django.contrib.sites to INSTALLED_APPS and set SITE_ID, or list "
                "several sites in SITEMAPKIT_SITES"
            )
        raise ImproperlyConfigured(f"SITEMAPKIT_BASE_URL {problem} ({value!r}); {fix}.")
    assert isinstance(value, str)
    return SitemapSite(DEFAULT_NAME, Origin.from_url(value))


def all_sites() -> list[SitemapSite]:
    """Every site, in the order configured (``Site`` rows by pk). A Site whose domain
    cannot be a base URL is left out, and logged."""
    found, unusable = sites_and_problems()
    for problem in unusable:
        logger.error("Left out of the sitemaps: %s", problem)
    return found


def sites_and_problems() -> tuple[list[SitemapSite], list[UnusableSite]]:
    """Every site, and the problem of each ``Site`` row that cannot be one."""
    if not several_sites():
        return [default_site()], []
    if framework_variant():
        return framework_sites()
    if wagtail_variant():
        return wagtail_sites()
    return list(setting_sites().values()), []


def site_named(name: str) -> SitemapSite | None:
    if not several_sites():
        site = default_site()
        return site if name == site.name else None
    if framework_variant() or wagtail_variant():
        return next((site for site in sites_and_problems()[0] if site.name == name), None)
    return setting_sites().get(name)


def site_headers() -> tuple[str, ...]:
    """The request headers ``site_for_request()`` chooses by: none with one site;
    ``Host`` with several, and ``X-Forwarded-Host`` too with ``USE_X_FORWARDED_HOST``,
    which ``get_host()`` then reads first. A response that depends on the choice
    names them in ``Vary`` (RFC 9110 section 12.5.5)."""
    if not several_sites():
        return ()
    return ("Host", "X-Forwarded-Host") if settings.USE_X_FORWARDED_HOST else ("Host",)


def site_for_request(request: HttpRequest, as_contrib: bool = False) -> SitemapSite:
    """The site ``request`` is for: the only one, or the configured site with the
    request's host; ``UnknownHost`` (a 404) if none has it. With ``as_contrib`` (the
    drop-in's views), a host no site has gets the site of the ``Site`` that
    ``SITE_ID`` names, as contrib's ``get_current_site()`` gives that row on any
    host, when ``django.contrib.sites`` is installed and a configured site has
    that row's host: its documents are on that site's base URL, never the request's."""
    if not several_sites():
        return default_site()
    # get_host() raises DisallowedHost (a 400) for a host ALLOWED_HOSTS refuses.
    host, port = host_and_port(request.get_host())
    if framework_variant():
        find, which, fix = framework_site_for, "No Site", "Add a Site with that domain"
    elif wagtail_variant():
        find, which = wagtail_site_for, "No Wagtail Site"
        fix = "Add a Wagtail Site with that hostname"
    else:
        find, which = setting_site_for, "No site of SITEMAPKIT_SITES"
        fix = "Add the site to SITEMAPKIT_SITES"
    site = find(host, port)
    if site is None and as_contrib:
        site = site_id_site(find)
    if site is None:
        logger.warning(
            "%s has the host %r, so %s serves no sitemap on it. %s if it should have one.",
            which,
            request.get_host(),
            request.path,
            fix,
        )
        raise UnknownHost(f"No sitemap is served on the host {request.get_host()!r}.")
    return site


def host_and_port(authority: str) -> tuple[str, int | None]:
    """A ``Host`` (or a ``Site``'s domain) as the host and port sites are matched by."""
    domain, port_text = split_domain_port(authority)
    return domain.removeprefix("[").removesuffix("]"), int(port_text) if port_text else None


def site_id_site(find: Callable[[str, int | None], SitemapSite | None]) -> SitemapSite | None:
    """The configured site (by ``find``) with the host of the ``Site`` ``SITE_ID``
    names; ``None`` without ``django.contrib.sites``, ``SITE_ID`` or that row."""
    if not apps.is_installed(SITES_APP) or not site_id():
        return None
    try:
        row = current_site()
    except UnusableSite:
        return None
    host, port = host_and_port(row.domain)
    return find(host, port) if host else None
