"""Wagtail's ``Site`` rows as sites: ``SITEMAPKIT_SITES = "wagtail"`` makes each one a
site of its own, on the root URL Wagtail gives it; and the Wagtail ``Site`` whose
pages a site's ``WagtailSource`` lists.

Wagtail is imported here only when one of these is called, so a project without
it never imports it. Rows are read from the database each time, never from
Wagtail's cache of site root paths, for the reason ``framework.py`` gives for
``django.contrib.sites``: a cache another process cannot empty would go on
serving an old host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import Origin, base_url_problem
from django_sitemapkit.sites.configured import (
    HostKey,
    SitemapSite,
    authority_name,
    matching,
    sites_of,
)
from django_sitemapkit.sites.framework import UnusableSite

if TYPE_CHECKING:
    from wagtail.models import Site as WagtailSite

#: The value of ``SITEMAPKIT_SITES`` that makes every Wagtail ``Site`` a site.
WAGTAIL_SITES = "wagtail"
#: The app Wagtail's ``Site`` and ``Page`` models belong to (its label is "wagtailcore").
WAGTAIL_APP = "wagtail"


def wagtail_variant() -> bool:
    """Whether ``SITEMAPKIT_SITES`` is ``"wagtail"``."""
    value = conf.raw("SITES")
    if value == WAGTAIL_SITES and not apps.is_installed(WAGTAIL_APP):
        raise ImproperlyConfigured(
            f"SITEMAPKIT_SITES is {WAGTAIL_SITES!r}, but {WAGTAIL_APP} is not in "
            "INSTALLED_APPS; install Wagtail, or list the sites in SITEMAPKIT_SITES."
        )
    return value == WAGTAIL_SITES


def wagtail_site(row: WagtailSite) -> SitemapSite:
    """The site of one Wagtail ``Site``, on its ``root_url`` (Wagtail's rule: port 443
    is https, 80 http, any other http with the port), named by its host and port;
    ``UnusableSite`` if that cannot be a base URL."""
    url = row.root_url
    problem = base_url_problem(url)
    name = None if problem is not None else authority_name(Origin.from_url(url))
    if problem is not None or name is None:
        raise UnusableSite(
            f"Wagtail Site {row.pk!r} (hostname {row.hostname!r}, SITEMAPKIT_SITES = "
            f"{WAGTAIL_SITES!r}) would be served on {url!r}, which "
            f"{problem or 'cannot name the directory of its built files'}.",
            f"Set the hostname of Wagtail Site {row.pk!r} to the host it is served on, "
            "such as 'www.example.com', and its port to 443 for https.",
        )
    return SitemapSite(name, Origin.from_url(url), several=True)


def wagtail_sites() -> tuple[list[SitemapSite], list[UnusableSite]]:
    """Every Wagtail ``Site``'s site, read now, and the problem of each that has none."""
    from wagtail.models import Site

    return sites_of(Site.objects.order_by("pk"), wagtail_site)


def wagtail_site_for(host: str, port: int | None) -> SitemapSite | None:
    """The site of the Wagtail ``Site`` with this host (one query)."""
    from wagtail.models import Site

    table: dict[HostKey, SitemapSite] = {}
    for row in Site.objects.filter(hostname__iexact=host.removesuffix(".")).order_by("pk"):
        try:
            site = wagtail_site(row)
        except UnusableSite:
            continue
        table.setdefault(site.key(), site)
    return matching(table, host, port)


def wagtail_site_of(site: SitemapSite) -> WagtailSite | None:
    """The Wagtail ``Site`` whose pages ``site`` lists, as Wagtail chooses a request's
    (``Site.find_for_request``): the one with the site's host and port, else the only
    one with its host, else the default one; ``None`` if there is none."""
    from wagtail.models import Site

    rows = list(Site.objects.select_related("root_page").filter(hostname__iexact=site.origin.host))
    exact = [row for row in rows if row.port == site.origin.port]
    if exact:
        return exact[0]
    if len(rows) == 1:
        return rows[0]
    return Site.objects.select_related("root_page").filter(is_default_site=True).first()
