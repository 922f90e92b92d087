"""The distributed cases, in their child processes: one full build of the
``--build-rows`` table (and of the example's other sections) into the S3 bucket
of ``SITEMAPKIT_STORAGE``, timed phase by phase.

- ``distributed-local``: the shards rendered in this process, as
  ``build_sitemaps --full`` renders them into a storage;
- ``distributed-celery``: the shards sent to Celery's workers, as
  ``build_sitemaps --via celery --full`` sends them, this process the coordinator.

Each builds as the command does (``django_sitemapkit.build.build()`` with the
command's destination and renderer), so that the phases can be timed without
touching the package: in this process only, ``plan_build`` and the
destination's ``publish`` are wrapped, and so is the renderer. The parent
empties the bucket before each build, so each is the set's first build: every
shard rendered, every file written. The distributed cases' servers and workers
are bench/distributed_services.py's; bench/distributed_runs.py runs the pairs.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, TypeVar
from unittest import mock

import django_sitemapkit.build as build_module
from django_sitemapkit.build import BuildPlan, build, local_renderer
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.directory import destination_for
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.build.selection import selected_sites, site_builds
from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.coordinator import Dispatch
from django_sitemapkit.distributed.engines import engine_named
from django_sitemapkit.distributed.staging import shared_destination

from bench.measuring import current_rss, peak_rss
from bench.sizes import PAGE_MAX
from bench.sources import register_bench_source, warm_process
from bench.specs import PAIRS
from bench.table import run_by

LOCAL, CELERY = run_by(PAIRS)
Result = TypeVar("Result")


class Marks:
    """When each phase of one build began and ended, by ``time.time()``: the clock of
    the workers' ``started`` and ``finished``, on the same machine."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    def mark(self, name: str) -> None:
        self.at[name] = time.time()

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.mark(f"{name}_start")
        try:
            yield
        finally:
            self.mark(f"{name}_end")

    def timed(self, name: str, call: Callable[..., Result]) -> Callable[..., Result]:
        def wrapper(*args: Any, **kwargs: Any) -> Result:
            with self.phase(name):
                return call(*args, **kwargs)

        return wrapper

    def seconds(self, name: str) -> float:
        return self.at[f"{name}_end"] - self.at[f"{name}_start"]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_child(name: str) -> dict[str, Any]:
    """One build of case ``name``, with its phases, shards, files and memory."""
    register_bench_source(PAGE_MAX)
    warm_process()
    sites, _ = selected_sites(None)
    (planned,) = site_builds(sites, None)
    site = planned.site
    options = BuildOptions(
        gzip=conf.GZIP, gzip_links=conf.GZIP_LINKS, full=True, indexnow=False, validate=False
    )
    dispatch: Dispatch | None = None
    destination: Destination
    if name == CELERY:
        destination = shared_destination(site, None)
        dispatch = Dispatch(engine_named("celery"), site, options)
        render: Callable[[BuildPlan, Destination], list[RenderedShard]] = dispatch
    else:
        destination = destination_for(site, None)
        render = local_renderer(site, options, 1, None)
    marks = Marks()
    rendered: list[RenderedShard] = []
    cpu: dict[str, float] = {}

    def renderer(plan: BuildPlan, destination: Destination) -> list[RenderedShard]:
        cpu["render_start"] = cpu_seconds()
        with marks.phase("render"):
            rendered.extend(render(plan, destination))
        cpu["render_end"] = cpu_seconds()
        return rendered

    baseline = current_rss()
    peak_before = peak_rss()
    cpu["start"] = cpu_seconds()
    with (
        mock.patch.object(build_module, "plan_build", marks.timed("plan", build_module.plan_build)),
        mock.patch.object(destination, "publish", marks.timed("publish", destination.publish)),
    ):
        marks.mark("start")
        result = build(destination, planned.sources, options, site, renderer=renderer)
        marks.mark("end")
    cpu["end"] = cpu_seconds()
    manifest = result.manifest
    if manifest is None or not result.published:
        raise RuntimeError(f"The {name} build published nothing.")
    files = list(manifest.files())
    return {
        "case": name,
        "label": destination.label,
        "seconds": marks.at["end"] - marks.at["start"],
        "marks": marks.at,
        "planning": marks.seconds("plan"),
        "render": marks.seconds("render"),
        "publish": marks.seconds("publish"),
        "shards": len(rendered),
        "shard_seconds": [shard.seconds for shard in rendered],
        "workers": [
            {**asdict(each.worker), "seconds": each.rendered.seconds}
            for each in (dispatch.results if dispatch is not None else [])
        ],
        "urls": sum(section.urls for section in result.sections),
        "files": sum(len(file.names()) for file in files) + 1,  # and the manifest
        "xml_bytes": sum(file.size for file in files),
        "gzip_bytes": sum(file.gzip_size or 0 for file in files),
        "cpu": {
            "build": cpu["end"] - cpu["start"],
            "render": cpu["render_end"] - cpu["render_start"],
        },
        "rss": {"baseline": baseline, "peak_before": peak_before, "peak": peak_rss()},
    }
