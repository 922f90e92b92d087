"""The incremental-build cases in the report: the files each step rewrote, kept
and removed, its time and peak memory, and the targets of the incremental engine
next to them, as text and for the JSON (see bench/incremental_runs.py)."""

from __future__ import annotations

import statistics
from typing import Any

from bench.incremental_changes import changes_for
from bench.incremental_runs import CHANGED, INCREMENTAL_CASES

MIB = 1024 * 1024
# The targets of the incremental engine: pages step 3 may rewrite (one per
# change: the deletion, the updates, the appended rows), and its share of the
# full build's time.
MAX_CHANGED_PAGES = 3
MAX_CHANGED_SHARE = 0.2
# "Not above" allows for noise: peak RSS moves by a few hundred KiB between two
# runs of the same build, and the traced peak with the rows of the largest page
# (step 3's table holds a few more or fewer than step 1's).
RSS_SLACK = MIB
TRACEMALLOC_SLACK = 1.05


def counts(result: dict[str, Any]) -> dict[str, int]:
    """The median over the runs of the files rewritten, kept and removed, and pages rewritten."""
    runs = result["files"]
    return {
        "rewritten": statistics.median_low(len(run["rewritten"]) for run in runs),
        "kept": statistics.median_low(run["kept"] for run in runs),
        "removed": statistics.median_low(len(run["removed"]) for run in runs),
        "pages": statistics.median_low(len(run["pages"]) for run in runs),
    }


def targets(results: dict[str, dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """Each target of the incremental engine: what it asks, what was measured, whether met."""
    full, unchanged, changed = (results[step] for step in INCREMENTAL_CASES)
    # The worst run, for the file counts: a target met once in three is not met.
    unchanged_files = max(len(run["rewritten"]) for run in unchanged["files"])
    changed_runs = changed["files"]
    pages = max(len(run["pages"]) for run in changed_runs)
    others = sorted({other for run in changed_runs for other in run["others"]})
    share = changed["time"]["median"] / full["time"]["median"]
    rss = (changed["rss"]["peak"], full["rss"]["peak"])
    traced = (changed["tracemalloc"]["peak"], full["tracemalloc"]["peak"])
    return [
        ("step 2 rewrites no file", f"{unchanged_files:,} files rewritten", unchanged_files == 0),
        (
            f"step 3 rewrites at most {MAX_CHANGED_PAGES} pages plus the index and manifest",
            f"{pages:,} page{'' if pages == 1 else 's'}" + "".join(f" + {o}" for o in others),
            pages <= MAX_CHANGED_PAGES,
        ),
        (
            "step 3 in at most a fifth of the full build's time",
            f"{share:.2f} of it",
            share <= MAX_CHANGED_SHARE,
        ),
        (
            "peak memory flat: step 3's peak not above step 1's",
            f"max RSS {rss[0] / MIB:,.2f} / {rss[1] / MIB:,.2f} MiB, "
            f"tracemalloc {traced[0] / MIB:,.2f} / {traced[1] / MIB:,.2f} MiB",
            rss[0] <= rss[1] + RSS_SLACK and traced[0] <= traced[1] * TRACEMALLOC_SLACK,
        ),
    ]


def report_lines(results: dict[str, dict[str, Any]], rows: int, runs: int) -> list[str]:
    """The steps' files and figures, and the targets next to them."""
    if not all(step in results for step in INCREMENTAL_CASES):
        return []
    changes = changes_for(rows)
    lines = [
        f"Incremental builds, one directory over 3 steps ({rows:,} rows; median of {runs} "
        f"run{'' if runs == 1 else 's'}; step 3 after {len(changes.appended):,} rows appended, "
        f"{len(changes.deleted):,} deleted from key {changes.deleted[0]:,}, "
        f"{len(changes.updated):,} updated from key {changes.updated[0]:,}):",
        "  Step       Time s  Rewritten    Kept  Removed  Pages rewritten  Max RSS MiB"
        "  tracemalloc MiB",
    ]
    for step in INCREMENTAL_CASES:
        result, found = results[step], counts(results[step])
        lines.append(
            f"  {step.removeprefix('incremental-'):<9} {result['time']['median']:7.3f}"
            f"  {found['rewritten']:9,}  {found['kept']:6,}  {found['removed']:7,}"
            f"  {found['pages']:15,}  {result['rss']['peak'] / MIB:11,.1f}"
            f"  {result['tracemalloc']['peak'] / MIB:15,.1f}"
        )
    pages = results[CHANGED]["files"][0]["pages"]
    if pages and len(pages) <= 2 * MAX_CHANGED_PAGES:
        lines.append(f"  Step 3 rewrote {', '.join(pages)}.")
    lines.append(
        "  Each step is one build in a child process of its own, without a warm-up; "
        "tracemalloc in one more run of the three."
    )
    lines.append("Targets of the incremental engine:")
    width = max(len(target) for target, _, _ in targets(results))
    for target, measured, met in targets(results):
        lines.append(f"  {target.ljust(width)}  {'met' if met else 'MISSED'}: {measured}")
    return [*lines, ""]


def summary(results: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The report's figures for the JSON, if the three steps ran."""
    if not all(step in results for step in INCREMENTAL_CASES):
        return None
    return {
        "counts": {step: counts(results[step]) for step in INCREMENTAL_CASES},
        "targets": [
            {"target": target, "measured": measured, "met": met}
            for target, measured, met in targets(results)
        ],
    }
