"""Database checks of the base URL against ``django.contrib.sites``. With
``SITEMAPKIT_BASE_URL`` set: whether the current Site names the same host (W001).
Left unset, the Site's domain is the base URL's host (``sites.py``): whether it
can be one (W010), and whether it is still the placeholder ``migrate`` gave the
first Site (W009). With ``SITEMAPKIT_SITES`` set, none of this applies: the Site
rows of its ``"django.contrib.sites"`` value are judged in ``site_rows``.

Registered with the database tag: Django runs these in ``migrate`` and in
``check --database``, where a query is expected. Before the first ``migrate``
there is no table to read, and nothing is said.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.core.checks import CheckMessage, Warning
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError
from django.http.request import split_domain_port

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import base_url_problem
from django_sitemapkit.sites.framework import (
    SITES_APP,
    UnusableSite,
    current_site,
    site_base_url,
    uses_site,
)
from django_sitemapkit.sites.hosts import default_site, several_sites

#: The domain django.contrib.sites gives the Site it creates after the first migrate.
PLACEHOLDER_DOMAIN = "example.com"


def check_sites_framework(
    databases: Iterable[str] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not databases or not apps.is_installed(SITES_APP) or several_sites():
        return []  # SITEMAPKIT_SITES: each Site row is judged in site_rows
    if uses_site():
        return check_site_domain()
    if base_url_problem(conf.BASE_URL) is not None:
        return []  # reported by check_settings
    return check_same_host()


def check_same_host() -> list[CheckMessage]:
    from django.contrib.sites.models import Site

    try:
        domain = Site.objects.get_current().domain
    except (DatabaseError, ImproperlyConfigured, Site.DoesNotExist):
        # No table or no row yet (before the first migrate): nothing to compare.
        return []
    origin = default_site().origin
    host, port = split_domain_port(domain)
    if host == origin.host and (not port or int(port) == origin.port):
        return []
    return [
        Warning(
            f"SITEMAPKIT_BASE_URL {conf.BASE_URL!r} names another host than the current "
            f"Site's domain {domain!r} (django.contrib.sites).",
            hint="Make them agree: update the Site's domain in the admin, or "
            "SITEMAPKIT_BASE_URL. Sitemaps are built on SITEMAPKIT_BASE_URL.",
            id="sitemapkit.W001",
        )
    ]


def check_site_domain() -> list[CheckMessage]:
    """W010 for a Site that cannot give the base URL, with the words the run time logs
    when it answers 503 for it; W009 for the placeholder domain."""
    try:
        site = current_site()
        site_base_url(site)
    except UnusableSite as exc:
        return [Warning(exc.problem, hint=exc.fix, id="sitemapkit.W010")]
    except DatabaseError:
        return []  # no table yet
    host, _port = split_domain_port(site.domain)
    if host != PLACEHOLDER_DOMAIN:
        return []
    return [
        Warning(
            "SITEMAPKIT_BASE_URL is not set, so the sitemap is built on https:// and the "
            f"domain of the current Site (pk={site.pk!r}), {site.domain!r}: the placeholder "
            "django.contrib.sites gives the first Site, not a host the site is served on.",
            hint=f"Set the domain of Site {site.pk!r} to the host the site is served on "
            "(Sites, in the admin), or set SITEMAPKIT_BASE_URL to the scheme and host the "
            "site is served on.",
            id="sitemapkit.W009",
        )
    ]
