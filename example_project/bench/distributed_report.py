"""The distributed cases in the report: each pair's builds phase by phase, the
coordinator's overhead, memory per process and whether the two sets are the same
bytes, as text and for the JSON (see bench/distributed_runs.py).

The coordinator's overhead is the distributed build's wall time less its
planning and less the span during which the workers rendered (the first
shard's start to the last one's end): the time the coordinator alone adds,
before the first shard and after the last; the target is under 5 % of the
wall. Distributing's whole cost is also given: the wall less the planning and
less the shards' render time shared among the workers (the sum of their
``rendered.seconds`` ÷ workers), which adds the workers' imbalance and their
work besides rendering (each shard's stats query and upload).
"""

from __future__ import annotations

import statistics
from typing import Any

from bench.specs import PAIRS
from bench.table import run_by

DISTRIBUTED_CASES = run_by(PAIRS)
LOCAL, CELERY = DISTRIBUTED_CASES
MIB = 1024 * 1024
TARGET = 0.05
#: The distributed build's wall time, phase by phase, between its marks.
PHASES = (
    ("lock and start", "start", "plan_start"),
    ("planning", "plan_start", "plan_end"),
    ("until the first shard started", "render_start", "first_started"),
    ("workers' span", "first_started", "last_finished"),
    ("until the last result was seen", "last_finished", "render_end"),
    ("assembly (index, manifest)", "render_end", "publish_start"),
    ("publish", "publish_start", "publish_end"),
    ("cleanup (staged files deleted)", "publish_end", "end"),
)


def figures(local: dict[str, Any], celery: dict[str, Any], workers: int) -> dict[str, Any]:
    """One pair's figures, in seconds and bytes."""
    shards = celery["workers"]
    started = min(shard["started"] for shard in shards)
    finished = max(shard["finished"] for shard in shards)
    marks = {**celery["marks"], "first_started": started, "last_finished": finished}
    wall, planning = celery["seconds"], celery["planning"]
    shard_sum = sum(celery["shard_seconds"])
    busy_sum = sum(shard["finished"] - shard["started"] for shard in shards)
    span = finished - started
    peaks: dict[str, int] = {}
    for shard in shards:
        pid = f"{shard['host']}:{shard['pid']}"
        peaks[pid] = max(peaks.get(pid, 0), shard["peak_rss"])
    overhead = wall - planning - shard_sum / workers
    overhead_span = wall - planning - span
    return {
        "first": LOCAL if local["first"] else CELERY,
        "local_wall": local["seconds"],
        "local_planning": local["planning"],
        "local_render": local["render"],
        "local_publish": local["publish"],
        "local_shard_sum": sum(local["shard_seconds"]),
        "local_peak_rss": local["rss"]["peak"],
        "wall": wall,
        "planning": planning,
        "render": celery["render"],
        "publish": celery["publish"],
        "shards": celery["shards"],
        "shard_sum": shard_sum,
        "busy_sum": busy_sum,
        "span": span,
        "overhead": overhead,
        "overhead_share": overhead / wall,
        "overhead_busy": wall - planning - busy_sum / workers,
        # The overhead, split: the workers' per-shard work besides rendering (the
        # shard's stats, its upload to the staging), their idle time within the
        # span, and the coordinator's own time outside of it.
        "worker_extras": (busy_sum - shard_sum) / workers,
        "worker_idle": span - busy_sum / workers,
        "render_slowdown": shard_sum / sum(local["shard_seconds"]),
        "overhead_span": overhead_span,
        "overhead_span_share": overhead_span / wall,
        "phases": {label: marks[end] - marks[begin] for label, begin, end in PHASES},
        "coordinator_cpu_render": celery["cpu"]["render"],
        "coordinator_cpu": celery["cpu"]["build"],
        "coordinator_peak_rss": celery["rss"]["peak"],
        "worker_peak_rss": peaks,
        "ratio": local["seconds"] / wall,
        "same_bytes": celery["same_bytes"],
        "load": [
            result[key] for result in (local, celery) for key in ("load_before", "load_after")
        ],
    }


def summary(results: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Every pair's figures and their medians, if the distributed cases ran."""
    if CELERY not in results:
        return None
    details = results[CELERY]["distributed"]
    workers = details["workers"]
    runs = [figures(pair[LOCAL], pair[CELERY], workers) for pair in details["pairs"]]
    numbers = [key for key, value in runs[0].items() if isinstance(value, float | int)]
    medians: dict[str, Any] = {key: statistics.median(run[key] for run in runs) for key in numbers}
    medians["phases"] = {
        label: statistics.median(run["phases"][label] for run in runs) for label, _, _ in PHASES
    }
    medians["worker_peak_rss"] = {
        pid: max(run["worker_peak_rss"].get(pid, 0) for run in runs)
        for pid in sorted({pid for run in runs for pid in run["worker_peak_rss"]})
    }
    return {
        "workers": workers,
        "overhead_definition": "wall - planning - sum(shard rendered.seconds) / workers",
        "overhead_span_definition": "wall - planning - (last shard finished - first started)",
        "target_share": TARGET,
        "target_met": medians["overhead_span_share"] < TARGET,
        "identical_in_every_pair": all(
            run["same_bytes"]["identical"] and run["same_bytes"]["manifest_identical_but_when"]
            for run in runs
        ),
        "leftovers": sorted(
            {key for pair in details["pairs"] for key in pair[CELERY]["leftovers"]}
        ),
        "services_peak_rss": details["services_peak_rss"],
        "runs": runs,
        "medians": medians,
    }


def mib(value: float) -> str:
    return f"{value / MIB:,.1f}"


def share(seconds: float, wall: float) -> str:
    return f"{seconds:.2f} s ({seconds / wall:.1%})"


def report_lines(results: dict[str, dict[str, Any]], rows: int) -> list[str]:
    found = summary(results)
    if found is None:
        return []
    m, workers, runs = found["medians"], found["workers"], found["runs"]
    head = (
        f"Distributed builds ({rows:,} rows and the example's other sections into moto's S3; "
        f"{workers} Celery workers of concurrency 1; {len(runs)} pair"
        f"{'' if len(runs) == 1 else 's'}, the order alternating; medians):"
    )
    lines = [
        head,
        "  Build           Wall s  Plan s  Render s  Publish s  Σ shards s  Σ busy s  Span s"
        "  Peak RSS MiB",
        f"  local          {m['local_wall']:7.2f}  {m['local_planning']:6.2f}"
        f"  {m['local_render']:8.2f}  {m['local_publish']:9.2f}  {m['local_shard_sum']:10.2f}"
        f"  {'-':>8}  {'-':>6}  {mib(m['local_peak_rss']):>12}",
        f"  celery ({workers} w.)  {m['wall']:7.2f}  {m['planning']:6.2f}  {m['render']:8.2f}"
        f"  {m['publish']:9.2f}  {m['shard_sum']:10.2f}  {m['busy_sum']:8.2f}  {m['span']:6.2f}"
        f"  {mib(m['coordinator_peak_rss']):>12}",
        f"  Local wall / distributed wall: {m['ratio']:.2f} (median of the pairs' ratios).",
        f"  Coordinator overhead, wall - planning - span of the workers' rendering: "
        f"{share(m['overhead_span'], m['wall'])}; target < {TARGET:.0%}: "
        f"{'met' if found['target_met'] else 'MISSED'}.",
        f"  Distributing's whole cost, wall - planning - Σ shard render s / {workers} workers: "
        f"{share(m['overhead'], m['wall'])}; with Σ busy s (render, stats, upload) / "
        f"{workers} instead of Σ render s: {share(m['overhead_busy'], m['wall'])}.",
        f"  The overhead, split: the workers' work besides rendering (each shard's stats and "
        f"upload to the staging), (Σ busy - Σ render) / {workers}: {m['worker_extras']:.2f} s; "
        f"the workers idle within the span, span - Σ busy / {workers}: {m['worker_idle']:.2f} s; "
        f"the coordinator outside the span: {m['overhead_span']:.2f} s. The shards rendered in "
        f"{m['render_slowdown']:.2f} times the local build's render time in all (2 workers, "
        "the database and the S3 server sharing the machine).",
        "  The distributed build's wall, phase by phase: "
        + "; ".join(f"{label} {seconds:.2f} s" for label, seconds in m["phases"].items())
        + ".",
        f"  Coordinator CPU: {m['coordinator_cpu_render']:.2f} s while the shards were out, "
        f"{m['coordinator_cpu']:.2f} s in all. Peak RSS in the table: the build's process "
        "(the coordinator, for celery).",
        "  Peak RSS, workers' pool processes (the results' peak_rss per pid): "
        + ", ".join(f"{pid} {mib(peak)} MiB" for pid, peak in m["worker_peak_rss"].items())
        + "; and by VmHWM: "
        + ", ".join(
            f"{name}{' (main process)' if name.startswith('worker') else ''} "
            f"{'-' if peak is None else mib(peak)} MiB"
            for name, peak in found["services_peak_rss"].items()
        )
        + ".",
        "  Pair               Local s  Dist s  Ratio  Overhead          Overhead (span)"
        "   Load (before and after each build)",
    ]
    for number, run in enumerate(runs, 1):
        label = f"{number} ({run['first'].removeprefix('distributed-')} first)"
        load = ", ".join(f"{value:.1f}" for value in run["load"])
        lines.append(
            f"  {label:17}  {run['local_wall']:7.2f}  {run['wall']:6.2f}  {run['ratio']:5.2f}"
            f"  {share(run['overhead'], run['wall']):16}  "
            f"{share(run['overhead_span'], run['wall']):16}  {load}"
        )
    same = "the same" if found["identical_in_every_pair"] else "NOT the same"
    objects = runs[0]["same_bytes"]["objects"]
    lines.append(
        f"  Bytes: the two sets were {same} in every pair ({objects:,} objects compared by "
        "SHA-256, and the manifest but for when it was built)."
    )
    if found["leftovers"]:
        lines.append(f"  Note: staged files left in the bucket: {len(found['leftovers']):,}.")
    return [*lines, ""]
