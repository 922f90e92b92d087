"""The site the drop-in serves, and what it gives a ``django.contrib.sitemaps`` class
about it: the ``site`` of ``get_urls(site=...)``, and the request of a class that
takes one.

contrib's views give ``get_urls()`` ``get_current_site(request)``: with
``django.contrib.sites`` installed, the row ``SITE_ID`` names, or (without
``SITE_ID``) the row whose domain is the request's host; without the
framework, a ``RequestSite`` of the request's host. Classes read more than
the domain from it: django CMS's ``CMSSitemap`` lists the pages of
``site.pk``. The drop-in serves a configured site, so it gives the row of
that site: the one whose domain is the site's host (any case, a final dot,
the port written out or not, as ``SITEMAPKIT_SITES = "django.contrib.sites"``
matches rows), else ``SITE_ID``'s row, as contrib would; and without the
framework, or with neither row, an object like ``RequestSite`` with the
site's host as ``domain`` and ``name`` and ``pk = None``. A row is read from
the database for each request, never from ``SiteManager``'s per-process cache
(``sites/framework.py`` says why).

The site served is chosen by the request's host as the app's own views choose
it, with one difference contrib's views make necessary: with several sites, a
host no site has gets the site of ``SITE_ID``'s ``Site`` row (when
``django.contrib.sites`` is installed and a configured site has that row's
host), as contrib serves that row on any host, so that a project's sitemap
tests on the test client's ``testserver`` pass unchanged. Its locations are
that site's base URL's, never the request's host. Without the sites framework
such a host is a 404, as in the app's own views.

A class whose ``__init__`` takes a ``request`` parameter (Wagtail's
``Sitemap(request=None)``) is called with one, as Wagtail's own views call
it: the request being answered in the drop-in views, and, where none is
being answered (``build_sitemaps``, a section of ``register()``), a GET of
the site's root built on its base URL's scheme, host and port, so that it
reads the same site a crawler's request would.
"""

from __future__ import annotations

import inspect
from io import BytesIO
from typing import Any

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest

from django_sitemapkit.registry import ADD_APP, installed
from django_sitemapkit.sites.base_urls import DEFAULT_PORTS, Origin
from django_sitemapkit.sites.configured import SitemapSite, framework_site_for
from django_sitemapkit.sites.framework import SITES_APP, UnusableSite, current_site, site_id
from django_sitemapkit.sites.hosts import site_for_request


class OriginSite:
    """A ``RequestSite`` of the base URL's host: ``domain`` and ``name`` are the host
    (and port), ``pk`` is ``None`` as no row stands behind it."""

    pk = None

    def __init__(self, origin: Origin) -> None:
        self.domain = self.name = origin.authority

    def __str__(self) -> str:
        return self.domain


def served_site(request: HttpRequest) -> SitemapSite:
    """The site ``request`` is for. The drop-in works without the app installed, but
    its system checks then never ran: a missing or bad base URL (sitemapkit.E001 to
    E004) is an ``ImproperlyConfigured`` that says so, and how to have it checked,
    not one a deploy's ``check`` could have caught. (A ``Site`` row that cannot
    give the base URL is ``UnusableSite``, answered 503 by ``answered()``.)"""
    try:
        return site_for_request(request, as_contrib=True)
    except UnusableSite:
        raise
    except ImproperlyConfigured as exc:
        if installed():
            raise
        raise ImproperlyConfigured(
            f"{exc} django_sitemapkit is not in INSTALLED_APPS, so manage.py check, which "
            f"reports this, does not check its settings. {ADD_APP}"
        ) from exc


def given_site(origin: Origin) -> Any:
    """The ``site`` a class's ``get_urls()`` is given on the site of ``origin``."""
    if not apps.is_installed(SITES_APP):
        return OriginSite(origin)
    port = None if origin.port == DEFAULT_PORTS.get(origin.scheme) else origin.port
    found = framework_site_for(origin.host, port)
    if found is not None:
        return found.django_site
    if site_id():
        try:
            return current_site()
        except UnusableSite:
            pass
    return OriginSite(origin)


def takes_request(declared: Any) -> bool:
    """Whether calling the class ``declared`` takes a ``request`` argument by name."""
    if not isinstance(declared, type):
        return False
    try:
        parameters = inspect.signature(declared).parameters
    except (TypeError, ValueError):  # a signature Python cannot read
        return False
    found = parameters.get("request")
    return found is not None and found.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


def site_request(origin: Origin) -> HttpRequest:
    """A GET of ``/`` on ``origin``, as a WSGI server would make it (PEP 3333)."""
    return WSGIRequest(
        {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": "/",
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": origin.host,
            "SERVER_PORT": str(origin.port),
            "HTTP_HOST": origin.authority,
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": origin.scheme,
            "wsgi.input": BytesIO(),
        }
    )


def instance(declared: Any, origin: Origin, request: HttpRequest | None) -> Any:
    """The value of a ``sitemaps`` dict as contrib's views use it: a class is called
    (with the request if it takes one), an instance is used as it is."""
    if takes_request(declared):
        return declared(request=request if request is not None else site_request(origin))
    return declared() if callable(declared) else declared
