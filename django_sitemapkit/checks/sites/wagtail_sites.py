"""System checks of Wagtail's sites: ``SITEMAPKIT_SITES = "wagtail"`` without Wagtail
(E105), and, in the database, its Wagtail ``Site`` rows (W050-W052) and the sites
of a ``WagtailSource`` that no Wagtail ``Site`` serves (W053).

The database checks are warnings, registered with the database tag, for the
reasons ``site_rows`` gives: the rows are data, and before the first ``migrate``
there is nothing to read. Wagtail is imported only where it is installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.db import DatabaseError, router, transaction
from django.http.request import validate_host

from django_sitemapkit.checks.sites.served_hosts import header_host
from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.conf import conf
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.framework import UnusableSite
from django_sitemapkit.sites.wagtail import (
    WAGTAIL_APP,
    WAGTAIL_SITES,
    wagtail_site_of,
    wagtail_sites,
)

VARIANT = f"SITEMAPKIT_SITES = {WAGTAIL_SITES!r}"


def check_wagtail_app() -> list[CheckMessage]:
    """E105: ``SITEMAPKIT_SITES = "wagtail"`` without Wagtail in ``INSTALLED_APPS``."""
    if apps.is_installed(WAGTAIL_APP):
        return []
    return [
        Error(
            f"SITEMAPKIT_SITES is {WAGTAIL_SITES!r}, but {WAGTAIL_APP!r} is not in "
            "INSTALLED_APPS: there is no Wagtail Site to serve sitemaps for.",
            hint=f"Install Wagtail and add {WAGTAIL_APP!r} to INSTALLED_APPS, or list the "
            "sites in SITEMAPKIT_SITES.",
            id="sitemapkit.E105",
        )
    ]


def check_wagtail_sites(
    databases: Iterable[str] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not databases or not apps.is_installed(WAGTAIL_APP):
        return []
    from wagtail.models import Site

    try:
        with transaction.atomic(using=router.db_for_read(Site)):
            if conf.raw("SITES") == WAGTAIL_SITES:
                return check_rows(*wagtail_sites())
            return check_served()
    except DatabaseError:
        return []  # no table yet


def check_rows(sites: list[SitemapSite], unusable: list[UnusableSite]) -> list[CheckMessage]:
    """W050 (no Wagtail Site), W051 (one that cannot be a site), W052 (its host)."""
    if not sites and not unusable:
        return [
            Warning(
                f"{VARIANT}, but there is no Wagtail Site: no sitemap is served.",
                hint="Add a Site in Wagtail's settings, or list the sites in SITEMAPKIT_SITES.",
                id="sitemapkit.W050",
            )
        ]
    found: list[CheckMessage] = [
        Warning(exc.problem, hint=exc.fix, id="sitemapkit.W051") for exc in unusable
    ]
    return found + check_allowed_hosts(sites)


def check_allowed_hosts(sites: list[SitemapSite]) -> list[CheckMessage]:
    """W052: a Wagtail Site's host that ALLOWED_HOSTS refuses (as W018 for a ``Site``)."""
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return []
    return [
        Warning(
            f"The host of Wagtail Site {site.name!r}, {header_host(site)!r}, is not accepted "
            f"by ALLOWED_HOSTS {settings.ALLOWED_HOSTS!r} ({VARIANT}): requests for its "
            "sitemaps are answered with 400.",
            hint=f"Add {header_host(site)!r} to ALLOWED_HOSTS, or delete the Wagtail Site if "
            "it is not served here.",
            id="sitemapkit.W052",
        )
        for site in sites
        if not validate_host(header_host(site), settings.ALLOWED_HOSTS)
    ]


def check_served() -> list[CheckMessage]:
    """W053: a site a ``WagtailSource`` lists on that no Wagtail Site serves (none has
    its host, and none is the default): the source lists no page there."""
    from django_sitemapkit.sites.hosts import all_sites
    from django_sitemapkit.wagtail import WagtailSource

    sources = [source for source in registry.all() if isinstance(source, WagtailSource)]
    if not sources:
        return []
    found: list[CheckMessage] = []
    for site in all_sites():
        if wagtail_site_of(site) is not None:
            continue
        found += [
            Warning(
                f"{describe(source)} lists no page on site {site.name!r} ({site.base_url}): "
                f"no Wagtail Site has the host {site.origin.host!r}, and none is the default.",
                hint=f"Add a Wagtail Site with the hostname {site.origin.host!r}, or make one "
                "the default site.",
                obj=type(source),
                id="sitemapkit.W053",
            )
            for source in sources
            if type(source).sites is None or site.name in (type(source).sites or ())
        ]
    return found
