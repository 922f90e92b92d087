"""Base URLs from the ``django.contrib.sites`` framework: ``SITEMAPKIT_SITE_SCHEME``
(``https`` unless set) and a ``Site``'s domain.

The current Site gives the base URL of a project that leaves
``SITEMAPKIT_BASE_URL`` unset; with ``SITEMAPKIT_SITES = "django.contrib.sites"``
every Site is a site of its own (``hosts.py``). Rows are read when a document is
served or built, never at import and never from a request. They are read
from the database each time, not from ``SiteManager``'s cache: that cache
lives as long as the process and is emptied only by a save or delete made in
that same process, so a domain changed from another process (the admin on
another server, a shell) would go on being served, to every tenant
(django-tenant-schemas #492). The Site is the one ``SITE_ID`` names: without
``SITE_ID``, ``get_current()`` would pick the Site by the request's host, and
contrib's views would fall back to that host itself, which whoever sends the
request chooses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import EXAMPLE, base_url_unset, domain_problem

if TYPE_CHECKING:
    from django.contrib.sites.models import Site

SITES_APP = "django.contrib.sites"
SET_THE_SETTING = (
    f"or set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, such as {EXAMPLE}."
)


class UnusableSite(ImproperlyConfigured):
    """The current Site cannot give the base URL. The message comes in two halves,
    what is wrong and its fix, which a system check shows as message and hint."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem} {fix}")
        self.problem = problem
        self.fix = fix


def site_id() -> object:
    return getattr(settings, "SITE_ID", None)


def uses_site() -> bool:
    """Whether the base URL is the current Site's: ``SITEMAPKIT_BASE_URL`` unset,
    ``django.contrib.sites`` installed, and ``SITE_ID`` set (tested as
    ``get_current()`` tests it, so that it never needs a request)."""
    return base_url_unset(conf.raw("BASE_URL")) and apps.is_installed(SITES_APP) and bool(site_id())


def current_site() -> Site:
    """The Site ``SITE_ID`` names; ``UnusableSite`` if no row has that pk."""
    # Imported here: the model can only be imported once the app registry is
    # ready, and only when the app is installed.
    from django.contrib.sites.models import Site

    try:
        site: Site = Site.objects.get(pk=site_id())
    except (Site.DoesNotExist, ValueError, TypeError):
        raise UnusableSite(
            f"SITEMAPKIT_BASE_URL is not set, and no Site has the pk SITE_ID = {site_id()!r} "
            "(django.contrib.sites): the sitemap has no host to be built on.",
            f"Create the Site {site_id()!r} with the domain the site is served on, set "
            f"SITE_ID to the pk of an existing Site, {SET_THE_SETTING}",
        ) from None
    return site


def site_base_url(site: Site, current: bool = True) -> str:
    """``SITEMAPKIT_SITE_SCHEME``, ``://`` and ``site``'s domain; ``UnusableSite`` if the
    domain is not a host and optional port, as ``SITEMAPKIT_BASE_URL``'s rules judge
    it. ``current`` says whether it stands in for ``SITEMAPKIT_BASE_URL`` (the
    current Site) or is one of ``SITEMAPKIT_SITES``."""
    problem = domain_problem(site.domain)
    if problem is not None:
        which = (
            f"SITEMAPKIT_BASE_URL is not set, and the domain of the current Site (pk={site.pk!r})"
            if current
            else f"The domain of Site {site.pk!r} (SITEMAPKIT_SITES = {SITES_APP!r})"
        )
        raise UnusableSite(
            f"{which}, {site.domain!r}, {problem}: the sitemap cannot be built "
            f"on {conf.SITE_SCHEME}:// and that domain.",
            f"Set the domain of Site {site.pk!r} to the host the site is served on, alone "
            "or with its port, such as 'www.example.com' or 'www.example.com:8443' (a "
            "non-ASCII host in its xn-- form), "
            + (SET_THE_SETTING if current else "or delete the Site if it has no sitemap."),
        )
    return f"{conf.SITE_SCHEME}://{site.domain}"
