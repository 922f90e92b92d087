"""The drop-in cases: a project's own ``django.contrib.sitemaps`` classes, served once by
contrib's ``sitemap`` view and once by ``django_sitemapkit.compat.sitemap``, over the
rows (and the page) of the other serving cases; and the same classes registered with
``django_sitemapkit.compat.register()``, built by ``build_sitemaps`` and served from
the built files.

They answer what switching the import of the views buys a project that keeps its
``Sitemap`` classes as they are, what registering them and serving the build buys on
top, and how that compares with declaring a ``SitemapSource`` (the ``ours`` case).
This module is imported only by the process that runs one of its cases
(bench/table.py names its makers), so no other case loads
django.contrib.sitemaps for it.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.contrib.sitemaps import Sitemap
from django.core.management import call_command
from django.db import connections
from django.db.models import QuerySet
from django.test import override_settings
from django.urls import reverse

from bench.build_cases import BuildCase
from bench.measuring import Case, Outcome, Sink, consume, read_whole, streamed
from bench.models import Page
from bench.serving_cases import ContribServe
from bench.sizes import PAGE_MAX, Plan
from bench.sources import contrib_sitemap, make_request, warm_process


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


def register_bench_sitemap(page_size: int) -> list[type[Any]]:
    """Step 2 of the migration for the bench rows: ``compat.register()`` of the dict
    ``contrib-class`` gives the views, so ``bench`` is a section of the app; returns
    the section classes, for ``unregister_all()``."""
    from django_sitemapkit import compat

    return list(compat.register({"bench": bench_sitemap_class(page_size)}))


def unregister_all(sections: list[type[Any]]) -> None:
    from django_sitemapkit import registry

    for section in sections:
        registry.unregister(section)


class RegisteredBuild(BuildCase):
    """``build-gzip``'s build (the same rows, options and gzip), with ``bench`` the
    ``BenchSitemap`` class registered through ``compat.register()`` instead of the
    declared ``BenchSource``."""

    def __init__(self) -> None:
        super().__init__(gzip=True, jobs=1)
        self.sections: list[type[Any]] = []

    def setup(self) -> None:
        self.sections = register_bench_sitemap(PAGE_MAX)
        warm_process()

    def teardown(self) -> None:
        unregister_all(self.sections)


class FilesPage:
    """Page 1 of ``bench`` from the package's ``page`` view with ``SITEMAPKIT_SERVE =
    "files"``: what a crawler's request costs once the registered classes are built.

    ``setup()`` registers ``BenchSitemap`` as ``build-registered`` does, with the
    serving page's size, and builds every section into a new directory (gzip on,
    as by default) in a forked process, so that the build's memory counts in
    neither this process's peak RSS nor its baseline. The request sends no
    ``Accept-Encoding``: the view answers the ``.xml`` file, whose URLs and
    locations the command checks as it does the other serving cases'.
    """

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size
        self.sections: list[type[Any]] = []
        self.directory: Path | None = None
        self.settings: override_settings | None = None

    def setup(self) -> None:
        from django_sitemapkit import views

        self.sections = register_bench_sitemap(self.page_size)
        self.directory = Path(tempfile.mkdtemp(prefix="sitemapkit-bench-files-"))
        self.settings = override_settings(
            SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(self.directory)
        )
        self.settings.enable()
        build_in_child(self.directory)
        self.view = views.page
        path = reverse("sitemapkit:page", kwargs={"section": "bench", "page": 1})
        self.request = make_request(path)
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = streamed(self.view(self.request, section="bench", page=1))
        return consume(response, Sink(started, check))

    def teardown(self) -> None:
        if self.settings is not None:
            self.settings.disable()
        unregister_all(self.sections)
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def build_in_child(directory: Path) -> None:
    """``build_sitemaps`` into ``directory`` in a forked process, which inherits the
    registry and the settings; like ``--jobs``' workers, it opens a connection of
    its own."""
    connections.close_all()
    process = multiprocessing.get_context("fork").Process(target=build_into, args=(directory,))
    process.start()
    process.join()
    if process.exitcode != 0:
        raise RuntimeError(f"build_sitemaps exited with {process.exitcode} (its error is above).")


def build_into(directory: Path) -> None:
    try:
        call_command("build_sitemaps", output=str(directory), verbosity=0)
    finally:
        connections.close_all()


# -- the makers, named by bench/table.py ----------------------------------------------


def contrib_class(plan: Plan) -> Case:
    return ContribServe(plan.serve_size, bench_sitemap_class)


def dropin_generic(plan: Plan) -> Case:
    return DropinServe(plan.serve_size, contrib_sitemap)


def dropin_class(plan: Plan) -> Case:
    return DropinServe(plan.serve_size, bench_sitemap_class)


def files_page(plan: Plan) -> Case:
    return FilesPage(plan.serve_size)


def build_registered(plan: Plan) -> Case:
    return RegisteredBuild()
