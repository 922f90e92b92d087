"""The incremental-build cases, in their child processes: ``build_sitemaps`` into
one output directory that persists over three steps, and the changes to the
build table made between the second step and the third, and undone after it.

The steps (bench/incremental_runs.py runs them in order, and compares the files
between them):

1. ``incremental-full``: a build into an empty directory;
2. ``incremental-unchanged``: the same build again, nothing changed;
3. ``incremental-changed``: the same build after ``apply_changes()``: rows
   appended at the end (new keys, a current lastmod), rows deleted in the
   middle of one page, and the lastmod of rows at the start of another set to
   now, each a page an incremental build should find changed.

The changes are chosen by position in the section's order (the primary key's),
on a table that must be the series of ``bench.seeding`` (row ``n`` at position
``n - 1``), which ``apply_changes()`` checks first; since every row of the series
is a pure function of its key, ``restore()`` can undo them exactly.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from typing import Any

from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from bench.incremental_changes import changes_for
from bench.measuring import current_rss, peak_rss
from bench.models import Page
from bench.seeding import (
    is_intact_prefix,
    refresh_statistics,
    reset_sequence,
    slug_for,
    updated_at_for,
)
from bench.sizes import PAGE_MAX, Plan
from bench.sources import register_bench_source, warm_process

CHANGE = "incremental-change"
RESTORE = "incremental-restore"


def is_series(rows: int) -> bool:
    """Whether ``bench_page`` holds rows 1..``rows`` of the series, judging by its count,
    its ends and every row the changes touch."""
    changes = changes_for(rows)
    if Page.objects.count() != rows or not is_intact_prefix(Page, rows):
        return False
    keys = [*changes.deleted, *changes.updated]
    found = set(Page.objects.filter(pk__in=keys).values_list("pk", "slug", "updated_at"))
    return found == {(n, slug_for(n), updated_at_for(n)) for n in keys}


def apply_changes(rows: int) -> dict[str, Any]:
    """Make the changes of step 3, in one transaction, as the site's own writes would."""
    changes = changes_for(rows)
    started = time.perf_counter()
    now = timezone.now()
    with transaction.atomic():
        if not is_series(rows):
            raise RuntimeError(
                f"bench_page does not hold rows 1..{rows:,} of the series, so the changes "
                "would not fall where they should: rerun with --reseed."
            )
        deleted = Page.objects.filter(pk__in=changes.deleted).delete()[0]
        updated = Page.objects.filter(pk__in=changes.updated).update(updated_at=now)
        appended = Page.objects.bulk_create(
            Page(id=n, slug=slug_for(n), updated_at=now) for n in changes.appended
        )
        reset_sequence(Page)
    return {
        "deleted": [changes.deleted[0], changes.deleted[-1], deleted],
        "updated": [changes.updated[0], changes.updated[-1], updated],
        "appended": [changes.appended[0], changes.appended[-1], len(appended)],
        "lastmod": now.isoformat(),
        "seconds": time.perf_counter() - started,
    }


def restore(rows: int) -> dict[str, Any]:
    """Undo ``apply_changes()``: the table is the series again (or this fails)."""
    changes = changes_for(rows)
    started = time.perf_counter()
    with transaction.atomic():
        Page.objects.filter(pk__gt=rows).delete()
        Page.objects.bulk_create(
            (Page(id=n, slug=slug_for(n), updated_at=updated_at_for(n)) for n in changes.deleted),
            ignore_conflicts=True,
        )
        Page.objects.bulk_update(
            [Page(id=n, updated_at=updated_at_for(n)) for n in changes.updated], ["updated_at"]
        )
        if not is_series(rows):
            raise RuntimeError(
                f"bench_page still differs from rows 1..{rows:,} of the series after undoing "
                "the incremental cases' changes: rerun with --reseed."
            )
        reset_sequence(Page)
    # Outside the transaction (VACUUM cannot run in one): each run starts from
    # the same planner statistics, and on PostgreSQL without the dead rows.
    refresh_statistics(Page)
    return {"seconds": time.perf_counter() - started}


def build(output: str) -> float:
    """One ``build_sitemaps`` into ``output``, as ``build-gzip`` runs it; its seconds."""
    started = time.perf_counter()
    call_command("build_sitemaps", output=output, gzip=True, jobs=1, verbosity=0)
    return time.perf_counter() - started


def measure_step(how: str, output: str) -> dict[str, Any]:
    """One build, timed, with the process's RSS around it (``time`` or ``rss``) or
    under ``tracemalloc``.

    One build per process and no warm-up: a second build would be another step.
    """
    register_bench_source(PAGE_MAX)
    warm_process()
    gc.collect()
    if how == "tracemalloc":
        tracemalloc.start()
        try:
            seconds = build(output)
            current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        return {"seconds": seconds, "peak": peak, "current": current}
    peak_before = peak_rss()
    baseline = current_rss()
    seconds = build(output)
    peak = peak_rss()
    return {
        "seconds": seconds,
        "baseline": baseline,
        "peak_before": peak_before,
        "peak": peak,
        "extra": max(peak - baseline, 0),
        "children_peak": 0,  # --jobs 1: no worker process
    }


def run_step(name: str, how: str | None, plan: Plan, output: str | None) -> dict[str, Any]:
    """What the child process of step ``name`` does (bench/table.py names it)."""
    if output is None or how is None:
        raise ValueError(f"The step {name!r} needs --measure and --output-dir.")
    return {"case": name, "measure": how, **measure_step(how, output)}


#: The children that change the build table between the steps, and undo the changes.
TASKS = {
    CHANGE: lambda plan: apply_changes(plan.build_rows),
    RESTORE: lambda plan: restore(plan.build_rows),
}
