"""System checks of the third-party classes the drop-in serves (the values of the
``sitemaps`` dicts its URL patterns pass, and the sections of ``compat.register()``):
django CMS's ``CMSSitemap`` without ``SITE_ID`` (E100), a Wagtail ``Site``
whose root URL is not the base URL of the site its ``Sitemap`` is read on (W046),
and, with ``--deploy``, a ``lastmod`` that is no date (W066).

What the drop-in gives a class (``compat/served.py``) is all such a class
reads, except where these checks say: ``CMSSitemap.items()`` reads the current
``Site`` itself, through ``SITE_ID``, wherever ``get_urls()`` has not been
called first (the index, ``register()``'s index, ``build_sitemaps``), and
contrib's own index fails the same way. A ``Site`` row given to
``get_urls()`` cannot put a location off the base URL: the drop-in mends
``protocol://domain`` of that same row onto the site's base URL, so no check
of the row's domain is needed here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError
from django.urls import get_resolver

from django_sitemapkit.checks.compat import innermost, routes
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite


def pattern_classes() -> Iterator[tuple[str, str, Any]]:
    """Each value of a ``sitemaps`` dict the drop-in's URL patterns pass, with where it
    is declared (for a message) and its key."""
    # Imported here: a project that does not use the drop-in does not load it for
    # these checks at start-up.
    from django_sitemapkit.compat import index, sitemap

    views = {innermost(index), innermost(sitemap)}
    if getattr(settings, "ROOT_URLCONF", None):
        for route, pattern, arguments in routes(get_resolver().url_patterns):
            sitemaps = arguments.get("sitemaps")
            if innermost(pattern.callback) in views and isinstance(sitemaps, Mapping):
                for key, value in sitemaps.items():
                    yield f"sitemaps[{key!r}] of the URL pattern {route!r}", key, value


def served_classes() -> Iterator[tuple[str, Any]]:
    """Each value the drop-in serves, with where it is declared, for a message."""
    from django_sitemapkit.compat.plan import ContribSource

    for where, _, value in pattern_classes():
        yield where, value
    for source in registry.all():
        if isinstance(source, ContribSource):
            yield f"the section {source.name!r} of compat.register()", type(source).contrib


def of_class(value: Any, base: type) -> bool:
    return issubclass(value if isinstance(value, type) else type(value), base)


def check_dropin_cms_site_id(**kwargs: Any) -> list[CheckMessage]:
    if not apps.is_installed("cms") or getattr(settings, "SITE_ID", None):
        return []
    from cms.sitemaps import CMSSitemap

    return [
        Error(
            f"django CMS's CMSSitemap ({where}) counts its pages on the current Site, "
            f"which SITE_ID names, and SITE_ID is {getattr(settings, 'SITE_ID', None)!r}: "
            "the sitemap index and build_sitemaps fail on it (contrib's index too).",
            hint="Set SITE_ID to the pk of the Site row of the site django CMS serves, "
            "such as SITE_ID = 1.",
            id="sitemapkit.E100",
        )
        for where, value in served_classes()
        if of_class(value, CMSSitemap)
    ]


def check_dropin_wagtail_sites(
    databases: Iterable[str] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not databases or not apps.is_installed("wagtail"):
        return []
    from wagtail.contrib.sitemaps import Sitemap

    found = [where for where, value in served_classes() if of_class(value, Sitemap)]
    if not found:
        return []
    from django_sitemapkit.sites.hosts import all_sites

    try:
        pairs = [(site, wagtail_site(site)) for site in all_sites()]
    except (DatabaseError, ImproperlyConfigured):
        return []  # no table yet, or no site: the checks of the sites say why
    return [
        off_base_url(found[0], site, row)
        for site, row in pairs
        if row is not None and row.root_url.lower() != site.base_url
    ]


def wagtail_site(site: SitemapSite) -> Any:
    """The Wagtail ``Site`` Wagtail's ``Sitemap`` reads on ``site``: the one a request
    to its base URL finds, else the default one (``get_wagtail_site()``)."""
    from wagtail.models import Site

    from django_sitemapkit.compat.served import site_request

    found = Site.find_for_request(site_request(site.origin))
    return found or Site.objects.filter(is_default_site=True).first()


def off_base_url(where: str, site: SitemapSite, row: Any) -> Warning:
    origin = site.origin
    # Wagtail's root URL is https on port 443, http on any other port.
    port = 443 if origin.scheme == "https" and origin.port == 443 else None
    if origin.scheme == "http":
        port = origin.port
    if port is None:
        fix = (
            f"Wagtail writes no https URL on port {origin.port}: serve the site on "
            f"port 443, or set {site.base_url_setting} to {row.root_url!r}."
        )
    else:
        fix = (
            f"Set the hostname of the Wagtail Site {row.pk!r} to {origin.host!r} and its "
            f"port to {port}, or set {site.base_url_setting} to {row.root_url!r} if "
            "its pages are served there."
        )
    return Warning(
        f"Wagtail's Sitemap ({where}) is read on the site {site.name!r} from the Wagtail "
        f"Site {row.pk!r}, whose root URL {row.root_url!r} is not the site's base URL "
        f"{site.base_url!r}: every URL of its pages is skipped, and each page of the "
        "section is a 404.",
        hint=fix,
        id="sitemapkit.W046",
    )


def check_dropin_lastmods(**kwargs: Any) -> list[CheckMessage]:
    """W066, with ``check --deploy`` (it calls the project's ``items()``): a class the
    drop-in serves whose ``lastmod`` for its first item is neither a date nor a
    datetime, such as a str. contrib's template writes such a value as an empty
    ``<lastmod>``; the drop-in cannot write it at all."""
    findings: list[CheckMessage] = []
    for where, value in served_classes():
        found = first_lastmod(value)
        if found is not None and not isinstance(found, dt.date):
            findings.append(
                Warning(
                    f"The lastmod of {where} is {found!r} for its first item, a "
                    f"{type(found).__name__}, not a date or datetime: no sitemap can write it "
                    "as a date.",
                    hint="Return the item's datetime (or date) from lastmod(), such as "
                    "item.updated_at, not its text; or return None for no <lastmod>.",
                    id="sitemapkit.W066",
                )
            )
    return findings


def first_lastmod(value: Any) -> Any:
    """``lastmod`` of the first of a contrib class's items, read as contrib reads it;
    ``None`` where it has none, or where its items cannot be read here (the views
    and their checks say why)."""
    sitemap = value() if isinstance(value, type) else value
    lastmod = getattr(sitemap, "lastmod", None)
    if not callable(lastmod):
        return lastmod
    try:
        items = sitemap.items()
        first = next(iter(items[:1] if hasattr(items, "__getitem__") else items), None)
        return None if first is None else lastmod(first)
    except Exception:  # the project's code: the views report its errors
        return None
