"""The fresh-on-commit cases, in the parent process (the table's ``FRESH``): the saves
in one child; each refresh paired with today's incremental build after the same
changes, in ``--runs`` rounds whose order alternates; the commit-to-served runs.
Each refresh, build and served run gets its own clone of the first set, made here
and compared with the set after the child (what it rewrote), then removed.

Each case's figures are returned in the shape of the other cases' (a ``time`` and
an ``rss`` measure), with its own under ``fresh`` (bench/fresh_report.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.fresh_sets import FIRST_SET, clone, remove_clone
from bench.fresh_specs import CHANGED_ROWS, MODES, PAIRS_PER_RUN, SERVED_CASE, WAYS
from bench.incremental_runs import compare, snapshot
from bench.specs import CaseSpec

Spawn = Callable[..., dict[str, Any]]
SAVES = "bench.changes_cases:measure_saves"
SERVED = SERVED_CASE


def shaped(
    seconds: list[float],
    cpu: list[float],
    peaks: list[int],
    baselines: list[int],
    urls: int = 0,
    page_bytes: int = 0,
    **fresh: Any,
) -> dict[str, Any]:
    """A case's figures as the report's table reads any case's."""
    return {
        "time": {
            "seconds": seconds,
            "median": statistics.median(seconds),
            "min": min(seconds),
            "cpu": cpu,
            "cpu_median": statistics.median(cpu),
            "ttfb": [None] * len(seconds),
            "ttfb_median": None,
            "bytes_per_run": [page_bytes] * len(seconds),
            "warmup": {
                "urls": urls,
                "bytes": page_bytes,
                "files": None,
                "gzip_bytes": None,
                "digest": None,
                "locs_digest": None,
            },
            "steps": {},
        },
        "rss": {
            "baseline": statistics.median(baselines),
            "peak_before": 0,
            "peak": max(peaks),
            "extra": max(max(peaks) - statistics.median(baselines), 0),
            "children_peak": 0,
        },
        "fresh": fresh,
    }


class FreshRuns:
    def __init__(
        self, spawn: Spawn, log: Callable[[str], None], cases: list[str], runs: int
    ) -> None:
        self.spawn = spawn
        self.log = log
        self.cases = cases
        self.runs = runs
        self.first: Path | None = None

    def run(self, spec: CaseSpec) -> dict[str, dict[str, Any]]:
        if spec.make == SAVES:
            return self.saves(spec.name)
        if spec.name == SERVED:
            return self.served()
        return self.refreshes()

    def saves(self, name: str) -> dict[str, dict[str, Any]]:
        """One child: each way of saving, the two modes in pairs."""
        pairs = self.runs * PAIRS_PER_RUN
        self.log(f"fresh-save: {pairs} pairs of saves, in a transaction and not...")
        found = self.spawn(f"--child={name}", f"--runs={self.runs}")
        atomic = found["atomic"]
        return {
            f"fresh-save-{mode}": shaped(
                atomic["times"][mode]["wall"],
                atomic["times"][mode]["cpu"],
                [found["peak"]],
                [found["baseline"]],
                **{way: found[way] for way in WAYS},
                pairs=found["pairs"],
            )
            for mode in MODES
        }

    def first_set(self) -> Path:
        if self.first is None:
            self.log("fresh: the first set of the build table (built once per size)...")
            made = self.spawn(f"--child={FIRST_SET}")
            self.log(f"fresh: first set {made['action']} ({made['seconds']:.1f} s): {made['path']}")
            self.first = Path(made["path"])
        return self.first

    def in_clone(self, name: str) -> tuple[dict[str, Any], list[str]]:
        """The child of ``name`` on a clone of the first set; the pages it rewrote."""
        output = clone(self.first_set())
        try:
            before = snapshot(output)
            result = self.spawn(
                f"--child={name}",
                f"--runs={self.runs}",
                f"--output-dir={output}",
                env={"SITEMAPKIT_OUTPUT_DIR": str(output)},
            )
            return result, compare(before, snapshot(output), 0).pages
        finally:
            remove_clone(output)

    def refreshes(self) -> dict[str, dict[str, Any]]:
        """Each count of changed rows: the refresh and the build after the same changes,
        ``runs`` rounds, the order reversed every round."""
        results: dict[str, dict[str, Any]] = {}
        for rows in CHANGED_ROWS:
            names = [f"fresh-{how}-{rows}" for how in ("refresh", "build")]
            names = [name for name in names if name in self.cases]
            runs: dict[str, list[tuple[dict[str, Any], list[str]]]] = {n: [] for n in names}
            for turn in range(self.runs):
                for name in names if turn % 2 == 0 else names[::-1]:
                    self.log(f"{name}: round {turn + 1} of {self.runs}...")
                    runs[name].append(self.in_clone(name))
            for name, done in runs.items():
                results[name] = shaped(
                    [result["seconds"] for result, _ in done],
                    [result["cpu"] for result, _ in done],
                    [result["peak"] for result, _ in done],
                    [result["baseline"] for result, _ in done],
                    queries=[result["queries"] for result, _ in done],
                    pages_rewritten=[len(pages) for _, pages in done],
                    changed_rows=rows,
                    changed_pages=done[0][0]["changed_pages"],
                    records_applied=[result["records_applied"] for result, _ in done],
                )
        return results

    def served(self) -> dict[str, dict[str, Any]]:
        """``runs`` saves, each in a child on a clone of its own: commit to served."""
        done = []
        for turn in range(self.runs):
            self.log(f"{SERVED}: run {turn + 1} of {self.runs}...")
            done.append(self.in_clone(SERVED)[0])
        last = done[-1]
        return {
            SERVED: shaped(
                [result["seconds"] for result in done],
                [result["cpu"] for result in done],
                [result["peak"] for result in done],
                [result["baseline"] for result in done],
                urls=last["urls"],
                page_bytes=last["bytes"],
                refresh_seconds=[result["refresh_seconds"] for result in done],
                get_seconds=[result["get_seconds"] for result in done],
                page=last["page"],
            )
        }
