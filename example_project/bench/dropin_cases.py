"""The drop-in against the view it replaces, request by request (the group ``dropin``):
django.contrib.sitemaps' ``sitemap`` and ``index`` views and django_sitemapkit.compat's,
given the same ``sitemaps`` dict (contrib's ``GenericSitemap``, or the hand-written
``BenchSitemap`` of bench/compat_cases.py), for page 1, the index, and a conditional
GET carrying the validators of the drop-in's own answer (a 304 from the drop-in;
contrib's view has no validators and writes the page again).

Each pair runs in turns (bench/turns.py), the order reversed every round, so that a
drift of the shared machine's speed weighs on both alike; besides the wall time,
each case times the CPU seconds of its runs (``steps()``: ``cpu``), which other
processes on the machine do not inflate.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from importlib import import_module
from typing import Any

from django.http import HttpResponseBase

from bench.compat_cases import bench_sitemap_class
from bench.measuring import SITEMAP_TAG, URL_TAG, Case, Outcome, Sink, read_whole
from bench.sizes import Plan
from bench.sources import contrib_sitemap, make_request, warm_process
from bench.specs import DROPIN_INDEX_LIMIT as INDEX_LIMIT

VIEWS = {"contrib": "django.contrib.sitemaps.views", "dropin": "django_sitemapkit.compat.views"}
SITEMAPS: dict[str, Callable[[int], Any]] = {
    "generic": contrib_sitemap,
    "class": bench_sitemap_class,
}
#: The URL name both index views reverse for their pages (bench/urls.py).
PAGE_URL_NAME = "bench-contrib-sitemap"


class ViewRequest:
    """One request to one of the two views: ``document`` is ``page``, ``index`` or
    ``304`` (page 1 with ``If-None-Match`` and ``If-Modified-Since``)."""

    def __init__(self, view: str, document: str, sitemap: str, page_size: int) -> None:
        self.view = view
        self.document = document
        self.limit = INDEX_LIMIT if document == "index" else page_size
        self.sitemap = SITEMAPS[sitemap]
        self.cpu: list[float] = []

    def setup(self) -> None:
        views = import_module(VIEWS[self.view])
        self.sitemaps = {"bench": self.sitemap(self.limit)}
        if self.document == "index":
            self.function = views.index
            self.arguments = {"sitemap_url_name": PAGE_URL_NAME}
            self.request = make_request("/sitemap.xml")
        else:
            self.function = views.sitemap
            self.arguments = {"section": "bench"}
            self.request = make_request("/sitemap-bench.xml", {"p": "1"}, self.validators())
        warm_process()

    def validators(self) -> dict[str, str] | None:
        """What a crawler sends back: the validators of the drop-in's answer to a GET."""
        if self.document != "304":
            return None
        from django_sitemapkit import compat

        answer = compat.sitemap(
            make_request("/sitemap-bench.xml", {"p": "1"}), sitemaps=self.sitemaps, section="bench"
        )
        return {"If-None-Match": answer["ETag"], "If-Modified-Since": answer["Last-Modified"]}

    def run(self, check: bool) -> Outcome:
        cpu, started = time.process_time(), time.perf_counter()
        response = self.function(self.request, sitemaps=self.sitemaps, **self.arguments)
        outcome = read(response, Sink(started, check, tag(self.document)))
        if not check:  # the untimed warm-up is not counted
            self.cpu.append(time.process_time() - cpu)
        return outcome

    def steps(self) -> dict[str, float]:
        return {"cpu": statistics.median(self.cpu)} if self.cpu else {}


def tag(document: str) -> bytes:
    return SITEMAP_TAG if document == "index" else URL_TAG


def read(response: HttpResponseBase, sink: Sink) -> Outcome:
    """Any answer of the two views read whole: a 200's body, or a 304's headers alone."""
    return read_whole(response, sink, (200, 304))


def view_request(plan: Plan, view: str, document: str, sitemap: str) -> Case:
    """The maker bench/table.py names, with the case's view, document and class."""
    return ViewRequest(view, document, sitemap, plan.serve_size)
