"""The serving cases: page 1 of the ``--rows`` table (and pages of the build table)
from django.contrib.sitemaps' view and this package's, and both sitemap indexes
over the ``--index-rows`` table. Each maker takes the run's sizes (bench/table.py
names them)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.urls import reverse

from bench.measuring import SITEMAP_TAG, Case, Outcome, Sink, answer, consume, read_whole, streamed
from bench.sizes import PAGE_MAX, Plan
from bench.sources import (
    BenchSource,
    IndexBenchSource,
    NoindexBenchSource,
    RegexBenchSource,
    contrib_index_sitemaps,
    contrib_sitemap,
    make_request,
    register_bench_source,
    warm_process,
)


class ContribServe:
    """django.contrib.sitemaps' ``sitemap`` view, rendered to its full content.

    ``sitemap`` makes what its ``sitemaps`` dict holds (a ``Sitemap`` instance or
    class) from the page size: ``contrib``'s GenericSitemap by default.
    """

    def __init__(self, page_size: int, sitemap: Callable[[int], Any] | None = None) -> None:
        self.page_size = page_size
        self.sitemap = sitemap or contrib_sitemap

    def setup(self) -> None:
        from django.contrib.sitemaps import views

        self.view = views.sitemap
        self.sitemaps = {"bench": self.sitemap(self.page_size)}
        self.request = make_request("/sitemap-bench.xml", {"p": "1"})
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = self.view(self.request, sitemaps=self.sitemaps, section="bench")
        return read_whole(response, Sink(started, check))


class OursServe:
    """This package's page view, streamed to the end and closed."""

    def __init__(self, page: int, page_size: int, source: type[BenchSource] = BenchSource) -> None:
        self.page = page
        self.page_size = page_size
        self.source = source

    def setup(self) -> None:
        from django_sitemapkit import views

        register_bench_source(self.page_size, self.source)
        self.view = views.page
        self.section = self.source.name
        path = reverse("sitemapkit:page", kwargs={"section": self.section, "page": self.page})
        self.request = make_request(path)
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = streamed(self.view(self.request, section=self.section, page=self.page))
        return consume(response, Sink(started, check))


class OursIndex:
    """This package's index view, ``GET /sitemap.xml``, from the database.

    With ``conditional``, the GET carries the ``If-None-Match`` and
    ``If-Modified-Since`` of a full response made in ``setup()``, and must be
    answered 304: what a crawler that already has the index costs.
    """

    def __init__(self, conditional: bool) -> None:
        self.conditional = conditional

    def setup(self) -> None:
        from django_sitemapkit import views

        register_bench_source(PAGE_MAX, IndexBenchSource)
        self.view = views.index
        path = reverse("sitemapkit:index")
        self.request = make_request(path)
        warm_process()
        if self.conditional:
            full = streamed(self.view(self.request))
            full.close()  # only its validators are needed
            if not full.has_header("ETag") or not full.has_header("Last-Modified"):
                raise RuntimeError("The sitemap index has no ETag or no Last-Modified.")
            validators = {
                "If-None-Match": full["ETag"],
                "If-Modified-Since": full["Last-Modified"],
            }
            self.request = make_request(path, headers=validators)

    def run(self, check: bool) -> Outcome:
        return answer(self.view, self.request, not self.conditional, check)


class ContribIndex:
    """django.contrib.sitemaps' ``index`` view over ``contrib``'s sitemap of the index
    table, 50,000 URLs a page; its pages are ``?p=N`` of a ``sitemap`` view."""

    def setup(self) -> None:
        from django.contrib.sitemaps import views

        self.view = views.index
        self.sitemaps = contrib_index_sitemaps(PAGE_MAX)
        self.request = make_request("/sitemap.xml")
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response: Any = self.view(
            self.request, sitemaps=self.sitemaps, sitemap_url_name="bench-contrib-sitemap"
        )
        response.render()
        content: bytes = response.content
        seconds = time.perf_counter() - started
        sink = Sink(started, check, SITEMAP_TAG)
        sink.take(content)
        outcome = sink.outcome(seconds)
        # Not streamed: the first byte leaves when the whole document is ready.
        outcome.ttfb = seconds
        return outcome


# -- the makers, named by bench/table.py ----------------------------------------------


def contrib(plan: Plan) -> Case:
    return ContribServe(plan.serve_size)


def ours(plan: Plan) -> Case:
    return OursServe(1, plan.serve_size)


def ours_regex(plan: Plan) -> Case:
    return OursServe(1, plan.serve_size, RegexBenchSource)


def ours_noindex(plan: Plan) -> Case:
    return OursServe(1, plan.serve_size, NoindexBenchSource)


def ours_first_page(plan: Plan) -> Case:
    return OursServe(1, PAGE_MAX)


def ours_far_page(plan: Plan) -> Case:
    return OursServe(plan.far_page, PAGE_MAX)


def contrib_index(plan: Plan) -> Case:
    return ContribIndex()


def ours_index(plan: Plan, conditional: bool) -> Case:
    return OursIndex(conditional)
