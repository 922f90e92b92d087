"""The drop-in cases: a project's own ``django.contrib.sitemaps`` classes, served once by
contrib's ``sitemap`` view and once by ``django_sitemapkit.compat.sitemap``, over the
rows (and the page) of the other serving cases.

They answer what switching the import of the views buys a project that keeps its
``Sitemap`` classes as they are, and how that compares with declaring a
``SitemapSource`` (the ``ours`` case). This module is imported only by the
process that runs one of its cases (``bench.cases`` makes them on demand), so
no other case loads django.contrib.sitemaps for it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import Any

from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet
from django.http import HttpResponseBase, StreamingHttpResponse
from django.urls import reverse

from bench.cases import (
    PAGE_MAX,
    Case,
    ContribServe,
    Outcome,
    Sink,
    consume,
    contrib_sitemap,
    make_request,
    warm_process,
)
from bench.models import Page


class BenchSitemap(Sitemap):  # type: ignore[type-arg]  # generic in django-stubs only
    """The bench rows as a project writes a sitemap by hand, without GenericSitemap:
    an ordered QuerySet (contrib warns on an unordered one), ``reverse()`` of
    the URL name every case lists, the row's own datetime."""

    changefreq = "daily"
    priority = 0.5

    def items(self) -> QuerySet[Page]:
        pages: QuerySet[Page] = Page.objects.order_by("pk")
        return pages

    def location(self, item: Page) -> str:
        return reverse("bench-page", kwargs={"slug": item.slug})

    def lastmod(self, item: Page) -> dt.datetime:
        return item.updated_at


def bench_sitemap_class(page_size: int) -> type[BenchSitemap]:
    """The class itself, as a project puts it in its ``sitemaps`` dict (both views then
    instantiate it on every request); a subclass with a lower ``limit`` for a
    smaller ``--rows`` run, so that its page 1 is the page of the other cases."""
    if page_size >= PAGE_MAX:
        return BenchSitemap
    return type(BenchSitemap.__name__, (BenchSitemap,), {"limit": page_size})


class DropinServe:
    """``django_sitemapkit.compat.sitemap`` over the ``sitemaps`` dict contrib's view
    is given, read to its end, streamed or not.

    Its locations come from ``SITEMAPKIT_BASE_URL``, contrib's from the request's
    host; ``make_request()`` sends the base URL's host, so both list the same
    locations (the command compares them).
    """

    def __init__(self, page_size: int, sitemap: Callable[[int], Any]) -> None:
        self.page_size = page_size
        self.sitemap = sitemap

    def setup(self) -> None:
        from django_sitemapkit import compat

        self.view = compat.sitemap
        self.sitemaps = {"bench": self.sitemap(self.page_size)}
        self.request = make_request("/sitemap-bench.xml", {"p": "1"})
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = self.view(self.request, sitemaps=self.sitemaps, section="bench")
        return read_whole(response, Sink(started, check))


def read_whole(response: HttpResponseBase, sink: Sink) -> Outcome:
    """Read any 200 answer to its end: a stream chunk by chunk (and closed), anything
    else (a TemplateResponse rendered first) in one piece, whose first byte
    leaves only when the whole document is ready."""
    if response.status_code != 200:
        response.close()
        raise RuntimeError(f"The sitemap view answered {response.status_code}, not 200.")
    if isinstance(response, StreamingHttpResponse):
        return consume(response, sink)
    try:
        render = getattr(response, "render", None)
        if render is not None:
            render()
        content: bytes = response.content  # type: ignore[attr-defined]
    finally:
        response.close()
    seconds = time.perf_counter() - sink.started
    sink.take(content)
    outcome = sink.outcome(seconds)
    outcome.ttfb = seconds
    return outcome


#: The cases of this module, each made from the serving page's size.
MAKERS: dict[str, Callable[[int], Case]] = {
    "contrib-class": lambda size: ContribServe(size, bench_sitemap_class),
    "dropin-generic": lambda size: DropinServe(size, contrib_sitemap),
    "dropin-class": lambda size: DropinServe(size, bench_sitemap_class),
}
