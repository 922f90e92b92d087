"""The drop-in against the view each third-party package's sitemap class is served by
(bench/thirdparty_specs.py's ``dropin-<package>-<document>-<view>`` cases): Wagtail's
``wagtail.contrib.sitemaps.Sitemap`` from Wagtail's own ``sitemap`` and ``index``
views, and django CMS's ``cms.sitemaps.CMSSitemap`` from contrib's (as django CMS
documents it), each against django_sitemapkit.compat's views given the same
``sitemaps`` dict, on the same pages, for page 1, the index, and a conditional GET.

Both views answer through Django's ``ConditionalGetMiddleware``, as on a site that
lists it in ``MIDDLEWARE`` (what Django's docs suggest for the sitemap views, and
what neither package's view does for itself): the package's view then answers the
conditional GET with 304 too, after writing the page to hash it. The conditional
GET carries the validators of the same view's own answer to a GET, as a crawler
sends back what it was given (``ETag``, ``Last-Modified`` where the view sends it).

Each run gets a new request (Wagtail keeps the request's ``Site`` on it, which a
server's next request would not have); CPU seconds are counted by bench/measuring.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib import import_module
from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponseBase
from django.middleware.http import ConditionalGetMiddleware

from bench.dropin_cases import PAGE_URL_NAME, read, tag
from bench.measuring import Case, Outcome, Sink
from bench.sizes import Plan
from bench.sources import make_request

# Per package: its sitemap class, the module of the views it is served by, and the
# function that makes its pages (in the child's untimed setup()).
PACKAGES = {
    "wagtail": ("wagtail.contrib.sitemaps:Sitemap", "wagtail.contrib.sitemaps.views"),
    "cms": ("cms.sitemaps:CMSSitemap", "django.contrib.sitemaps.views"),
}
SEEDING = {"wagtail": "bench.wagtail_cases", "cms": "bench.cms_cases"}
DROPIN_VIEWS = "django_sitemapkit.compat.views"
SECTION = "pages"


def imported(dotted: str) -> Any:
    module, _, name = dotted.partition(":")
    return getattr(import_module(module), name)


class PackageViewRequest:
    """One request of ``document`` (``page``, ``index``, ``304``) to ``view`` (``own``,
    the package's; ``dropin``, compat's) over ``package``'s sitemap class."""

    def __init__(self, package: str, document: str, view: str) -> None:
        self.package, self.document, self.view = package, document, view

    def setup(self) -> None:
        sitemap_class, own_views = PACKAGES[self.package]
        import_module(SEEDING[self.package]).ensure_pages()
        views = import_module(own_views if self.view == "own" else DROPIN_VIEWS)
        sitemaps = {SECTION: imported(sitemap_class)}
        if self.document == "index":
            self.path, self.query = "/sitemap.xml", None
            function = views.index
            arguments = {"sitemaps": sitemaps, "sitemap_url_name": PAGE_URL_NAME}
        else:
            self.path, self.query = f"/sitemap-{SECTION}.xml", {"p": "1"}
            function = views.sitemap
            arguments = {"sitemaps": sitemaps, "section": SECTION}
        self.answer = through_middleware(lambda request: function(request, **arguments))
        self.headers = self.validators() if self.document == "304" else None
        connection.ensure_connection()

    def validators(self) -> dict[str, str]:
        """What a crawler sends back: the validators of this view's answer to a GET."""
        response = self.answer(make_request(self.path, self.query))
        read(response, Sink(time.perf_counter(), False))
        names = {"ETag": "If-None-Match", "Last-Modified": "If-Modified-Since"}
        found = {header: response[name] for name, header in names.items() if name in response}
        if not found:
            raise RuntimeError(f"The {self.view} view of {self.package} sent no validator.")
        return found

    def run(self, check: bool) -> Outcome:
        request = make_request(self.path, self.query, self.headers)
        started = time.perf_counter()
        return read(self.answer(request), Sink(started, check, tag(self.document)))


def through_middleware(
    view: Callable[[HttpRequest], HttpResponseBase],
) -> Callable[[HttpRequest], HttpResponseBase]:
    """``view`` behind ConditionalGetMiddleware, its TemplateResponse rendered first, as
    Django's handler renders it before the middleware sees it."""

    def rendered(request: HttpRequest) -> HttpResponseBase:
        response = view(request)
        render = getattr(response, "render", None)
        if render is not None:
            render()
        return response

    middleware: Callable[[HttpRequest], HttpResponseBase] = ConditionalGetMiddleware(rendered)
    return middleware


def package_case(plan: Plan, package: str, document: str, view: str) -> Case:
    """The maker bench/thirdparty_specs.py names."""
    return PackageViewRequest(package, document, view)
