"""What the cases serve: this package's ``bench`` sections (registered at run time,
in a benchmark process only), django.contrib.sitemaps' sitemap of the same rows,
and the requests both are asked with."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection
from django.http import HttpRequest
from django.test import RequestFactory
from django.urls import reverse
from django_sitemapkit import SitemapSource, register, registry

from bench.models import BenchRow, IndexPage, Page
from bench.seeding import slug_for
from bench.sizes import PAGE_MAX


class BenchSource(SitemapSource):
    """The benchmark's section; registered at run time, in a benchmark process only."""

    name = "bench"
    queryset = Page.objects.all()
    url_name = "bench-page"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    changefreq = "daily"
    priority = 0.5


class RegexBenchSource(BenchSource):
    """The same rows and locations through a ``re_path()`` (see bench/urls.py).

    The package compiles only a ``path()`` pattern into a URL template; for
    this one it must call ``reverse()`` for every row.
    """

    name = "benchre"
    url_name = "bench-page-re"


class NoindexBenchSource(BenchSource):
    """``bench`` with a declared ``noindex``: the condition is in every query of the
    section, and keeps no row out (the column is NULL), so the page is ``bench``'s."""

    name = "bench-noindex"
    noindex = "noindex"


class IndexBenchSource(BenchSource):
    """``bench`` over the ``--index-rows`` table, for the index cases."""

    queryset = IndexPage.objects.all()  # type: ignore[assignment]  # the same columns


def register_bench_source(page_size: int, source: type[BenchSource] = BenchSource) -> None:
    """Register ``source`` with ``page_size`` URLs a page (a smaller ``--rows`` run)."""
    if registry.get(source.name) is not None:
        return
    if page_size >= PAGE_MAX:
        register(source)
    else:
        register(type(source.__name__, (source,), {"limit": page_size}))


def contrib_sitemap(page_size: int, model: type[BenchRow] = Page) -> Any:
    """Django's own sitemap of the same rows, as its documentation writes it."""
    from django.contrib.sitemaps import GenericSitemap

    sitemap = GenericSitemap(
        {"queryset": model._default_manager.order_by("pk"), "date_field": "updated_at"},
        priority=0.5,
        changefreq="daily",
    )
    sitemap.limit = page_size
    return sitemap


def contrib_index_sitemaps(page_size: int) -> dict[str, Any]:
    """The ``sitemaps`` of the ``contrib-index`` case: ``contrib``'s, over the index table."""
    return {"bench": contrib_sitemap(page_size, IndexPage)}


def base_url() -> str:
    value: str = settings.SITEMAPKIT_BASE_URL
    return value.rstrip("/")


def make_request(
    path: str, query: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> HttpRequest:
    """A GET on the base URL's host and scheme.

    django.contrib.sitemaps takes its domain from the request (RequestSite,
    as the sites framework is not installed), so with the base URL's host and
    port both sitemaps write the same locations.
    """
    parts = urlsplit(base_url())
    return RequestFactory().get(
        path,
        query or {},
        headers=headers,
        HTTP_HOST=parts.netloc,
        secure=parts.scheme == "https",
    )


def warm_process() -> None:
    """Open the connection and load the URL resolvers before anything is measured:
    every long-running server has done both before its first sitemap request."""
    connection.ensure_connection()
    reverse("bench-page", kwargs={"slug": slug_for(1)})
