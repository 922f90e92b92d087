"""The refresh cases, in their child processes: ``refresh_changes()`` after changed rows,
against today's incremental ``build_sitemaps`` after the same changes; and the time
from a row's commit to its new file being served.

Each child works on a clone of the first set (bench/fresh_sets.py) that the parent
made, named by ``--output-dir`` and by ``SITEMAPKIT_OUTPUT_DIR`` (refresh_changes()
builds into the project's own directory), makes its changes untimed, measures one
refresh or build, and undoes the changes, whatever happened.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management import call_command
from django.db import connection, transaction
from django.http import HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.test.utils import override_settings
from django.urls import reverse
from django.utils import timezone
from django_sitemapkit.build.refresh import refresh_changes

from bench.fresh_sets import change_rows, check_series, clear_records, restore_rows
from bench.fresh_specs import changed_keys, pages_of, served_page
from bench.measuring import Sink, current_rss, peak_rss, read_whole
from bench.models import Page
from bench.seeding import slug_for, updated_at_for
from bench.sizes import PAGE_MAX, Plan
from bench.sources import base_url, make_request, register_bench_source, warm_process


@contextmanager
def counted_queries(found: list[int]) -> Iterator[None]:
    """Count the statements the default connection runs (``found[0]``), without keeping
    them: a build's would overflow Django's log of 9,000."""

    def count(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        found[0] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        yield


def timed(work: Callable[[], Any]) -> dict[str, Any]:
    """``work()``'s wall and CPU seconds, statements, and the process's RSS around it."""
    gc.collect()
    baseline, queries = current_rss(), [0]
    with counted_queries(queries):
        cpu, started = time.process_time(), time.perf_counter()
        outcome = work()
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu": cpu,
        "queries": queries[0],
        "outcome": outcome,
        "baseline": baseline,
        "peak": peak_rss(),
    }


def incremental_build() -> None:
    """Today's build: every section compared with the manifest, into the project's
    directory, as the refresh's first version and a periodic cron job run it."""
    call_command("build_sitemaps", gzip=True, jobs=1, verbosity=0)


def measure_refresh(
    plan: Plan, runs: int, output: str | None, how: str, rows: int
) -> dict[str, Any]:
    """``rows`` rows changed and recorded, then a refresh (``how`` ``refresh``) or an
    incremental build (``build``) of the clone ``output``; the rows restored after."""
    register_bench_source(PAGE_MAX)
    warm_process()
    keys = changed_keys(plan.build_rows, rows)
    check_series(keys)
    clear_records()
    change_rows(keys)
    try:
        work = (lambda: refresh_changes().records) if how == "refresh" else incremental_build
        result = timed(work)
    finally:
        restore_rows(keys)
    applied = result.pop("outcome")
    return {
        "case": f"fresh-{how}-{rows}",
        **result,
        "changed_rows": rows,
        "changed_pages": pages_of(keys),
        "records_applied": applied,
    }


def whole_body(response: HttpResponseBase) -> bytes:
    """A file's answer read to its end as a server sends it, and nothing else done."""
    if response.status_code != 200 or not isinstance(response, StreamingHttpResponse):
        response.close()
        raise RuntimeError(f"The page view answered {response.status_code}, not a file.")
    try:
        return b"".join(response.streaming_content)  # type: ignore[arg-type]
    finally:
        response.close()


def slug_changed(key: int) -> str:
    return f"{slug_for(key)}-moved"


def commit_to_served(plan: Plan, runs: int, output: str | None) -> dict[str, Any]:
    """A row's slug and ``updated_at`` saved (``save()``, one transaction, the change
    recorded by its ``post_save``), then ``refresh_changes()``, then a GET of its page
    through the views, served from the files: the seconds from the commit to the last
    byte of a page that lists the new URL."""
    register_bench_source(PAGE_MAX)
    # After the source is registered: the capture connects to the models it reads.
    settings = override_settings(SITEMAPKIT_CHANGES="record")
    settings.enable()
    from django_sitemapkit import views

    page = served_page(plan)
    key = (plan.build_rows // 2) + 1
    request = make_request(reverse("sitemapkit:page", kwargs={"section": "bench", "page": page}))
    warm_process()
    check_series([key])
    clear_records()
    # What a server has done before: its first answer from the files (untimed).
    before = read_whole(views.page(request, section="bench", page=page), Sink(0.0, True))
    row = Page.objects.get(pk=key)
    row.slug, row.updated_at = slug_changed(key), timezone.now()
    baseline = current_rss()
    try:
        with transaction.atomic():
            row.save()
        committed, cpu = time.perf_counter(), time.process_time()
        refreshed = refresh_changes()
        after_refresh = time.perf_counter()
        body = whole_body(views.page(request, section="bench", page=page))
        finished, cpu = time.perf_counter(), time.process_time() - cpu
    finally:
        Page.objects.filter(pk=key).update(slug=slug_for(key), updated_at=updated_at_for(key))
        clear_records()
        settings.disable()
    # Checked after the timing: hashing and parsing 8 MB is no part of serving it.
    served = read_whole(HttpResponse(body), Sink(0.0, True))
    wanted = f"<loc>{base_url()}/bench/{slug_changed(key)}/</loc>".encode()
    if wanted not in body:
        raise RuntimeError(
            f"Page {page} served after the refresh does not list {wanted.decode()}: the "
            "saved row did not reach the files."
        )
    return {
        "case": "fresh-served",
        "seconds": finished - committed,
        "cpu": cpu,
        "refresh_seconds": after_refresh - committed,
        "get_seconds": finished - after_refresh,
        "records_applied": refreshed.records,
        "page": page,
        "urls": served.urls,
        "bytes": served.bytes,
        "bytes_before": before.bytes,
        "baseline": baseline,
        "peak": peak_rss(),
    }
