"""The sitemap views: each answers from the built files or from the database, as
``SITEMAPKIT_SERVE`` says, as XML or as the gzip file of that XML; and the HTML
sitemap for people, always from the database."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponseBase
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding import html
from django_sitemapkit.names import INDEX_FILENAME, page_filename
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.hosts import site_for_request
from django_sitemapkit.views import serving
from django_sitemapkit.views.database import database_index, database_page
from django_sitemapkit.views.decorators import sitemap_view
from django_sitemapkit.views.http import (
    GZIP,
    XML,
    Representation,
    answered,
    no_sources,
)
from django_sitemapkit.views.visitors import database_html_index, database_html_page

__all__ = ["html_index", "html_page", "index", "index_gz", "page", "page_gz"]


@require_safe
@sitemap_view
def index(request: HttpRequest) -> HttpResponseBase:
    return index_as(request, XML)


@require_safe
@sitemap_view
def index_gz(request: HttpRequest) -> HttpResponseBase:
    return index_as(request, GZIP)


@require_safe
@sitemap_view
def page(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    return page_as(request, section, page, XML)


@require_safe
@sitemap_view
def page_gz(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    return page_as(request, section, page, GZIP)


def index_as(request: HttpRequest, representation: Representation) -> HttpResponseBase:
    def respond() -> HttpResponseBase:
        site = site_for_request(request)
        return from_files_or_database(
            request,
            site,
            INDEX_FILENAME,
            representation,
            lambda: database_index(request, site, representation),
        )

    return answered(request, "The sitemap index", respond)


def page_as(
    request: HttpRequest, section: str, page: int, representation: Representation
) -> HttpResponseBase:
    def respond() -> HttpResponseBase:
        site = site_for_request(request)
        return from_files_or_database(
            request,
            site,
            page_filename(section, page),
            representation,
            lambda: database_page(request, site, representation, section, page),
        )

    return answered(request, f"Page {page} of sitemap source {section!r}", respond)


def from_files_or_database(
    request: HttpRequest,
    site: SitemapSite,
    filename: str,
    representation: Representation,
    database: Callable[[], HttpResponseBase],
) -> HttpResponseBase:
    """The built file in the file modes, if there is one; else, when no set is built
    at all and the mode allows it, the database's answer.

    A built file is served whatever is registered: in the file modes the
    build is what the views answer from. Anything else needs a source.
    """
    built = built_file(request, site, filename, representation)
    if built is not None:
        return built
    if not registry.all():
        return no_sources(request)
    if conf.SERVE == "files":
        # Never a silent database scan: in this mode the build is the only source.
        raise Http404(f"{filename + representation.suffix} has not been built.")
    if conf.SERVE == "files-or-database" and serving.built_files(site).has_set():
        # A built set's files are cut by key range, the database's pages by
        # position: page 3 of one is not page 3 of the other, so a set that
        # exists is served alone, and the database only stands in for no set.
        raise Http404(f"{filename + representation.suffix} is not in the built set.")
    return database()


def built_file(
    request: HttpRequest, site: SitemapSite, filename: str, representation: Representation
) -> HttpResponseBase | None:
    """The site's built file's response in the file modes; ``None`` if it is not built,
    or in the database mode."""
    if conf.SERVE not in serving.FILE_MODES:
        return None
    return serving.file_response(request, filename + representation.suffix, site)


# -- the HTML sitemap for visitors (views/visitors.py), from the database in every mode -


@require_safe
@sitemap_view
def html_index(request: HttpRequest) -> HttpResponseBase:
    if not registry.all():
        return no_sources(request)
    response = answered(
        request,
        "The HTML sitemap index",
        lambda: database_html_index(request, site_for_request(request)),
    )
    return with_html_headers(response)


@require_safe
@sitemap_view
def html_page(request: HttpRequest, section: str, page: int) -> HttpResponseBase:
    if not registry.all():
        return no_sources(request)
    response = answered(
        request,
        f"HTML page {page} of sitemap source {section!r}",
        lambda: database_html_page(request, site_for_request(request), section, page),
    )
    return with_html_headers(response)


def with_html_headers(response: HttpResponseBase) -> HttpResponseBase:
    if response.status_code in (200, 304):
        policy = html.content_security_policy()
        if policy is not None:
            response["Content-Security-Policy"] = policy
        # A page for people: no X-Robots-Tag, which is meant for the XML.
        if "X-Robots-Tag" in response:
            del response["X-Robots-Tag"]
    return response
