"""The report's figures, from the children's results: each case's row (seconds, MiB,
counts), the ratios of the table's ``RATIOS``, the rounds of the cases run in
turns, and whether a case wrote the bytes of ours."""

from __future__ import annotations

import statistics
from typing import Any

from bench.ratios import Ratio
from bench.sizes import Plan
from bench.table import BY_NAME, TURN_PAIRS

MIB = 1024 * 1024
# What a ratio's measure names, and the column of Figures.row() it divides.
RATIO_MEASURES = {
    "time": "median_s",
    "CPU": "cpu_s",
    "CPU with the database server": "cpu_with_server_s",
    "extra RSS": "extra_rss_mib",
    "tracemalloc peak": "tracemalloc_mib",
}
# The report's comparisons with ours (the table's ``bytes_of_ours``), in its order.
SAME_BYTES = ("floor", "dropin", "files")


def median(values: list[float] | None) -> float | None:
    return statistics.median(values) if values else None


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


class Figures:
    def __init__(self, results: dict[str, dict[str, Any]], plan: Plan) -> None:
        self.results = results
        self.plan = plan

    def label(self, name: str) -> str:
        spec = BY_NAME[name]
        return name if spec.label is None else spec.label(self.plan)

    def row(self, name: str) -> dict[str, Any]:
        """One case's figures, in seconds, MiB and counts."""
        timed = self.results[name]["time"]
        rss = self.results[name]["rss"]
        # --jobs builds in worker processes: their peak is the one that matters,
        # and tracemalloc cannot see into them.
        in_workers = BY_NAME[name].in_workers
        peak = max(rss["peak"], rss["children_peak"]) if in_workers else rss["peak"]
        # The distributed cases are not traced (their work is in other processes).
        traced = self.results[name].get("tracemalloc")
        warmup = timed["warmup"]
        return {
            "case": self.label(name),
            "median_s": timed["median"],
            "cpu_s": timed.get("cpu_median"),
            # SQLite's work is the process's own: its CPU is the whole cost.
            "cpu_with_server_s": median(timed.get("cpu_with_server") or timed.get("cpu")),
            "min_s": timed["min"],
            "ttfb_s": timed["ttfb_median"],
            "tracemalloc_mib": None if in_workers or traced is None else traced["peak"] / MIB,
            "max_rss_mib": peak / MIB,
            "extra_rss_mib": max(peak - rss["baseline"], 0) / MIB,
            "urls": warmup["urls"],
            "bytes": warmup["bytes"],
            "files": warmup["files"],
            "gzip_bytes": warmup["gzip_bytes"],
        }

    def rows(self) -> list[dict[str, Any]]:
        return [self.row(name) for name in self.results]

    def ratios(self, ratios: tuple[Ratio, ...]) -> dict[str, float | None]:
        """Each of ``ratios`` by its label; None unless both of its cases ran."""
        rows = {name: self.row(name) for name in self.results}

        def of(name: str, key: str) -> float | None:
            return rows[name][key] if name in rows else None

        found = {}
        for each in ratios:
            numerator, denominator = self.label(each.numerator), self.label(each.denominator)
            if each.measure == "TTFB":
                label = f"{numerator}, TTFB / total"
                pair = (of(each.numerator, "ttfb_s"), of(each.numerator, "median_s"))
            else:
                label = f"{numerator} / {denominator}, {each.measure}"
                key = RATIO_MEASURES[each.measure]
                pair = (of(each.numerator, key), of(each.denominator, key))
            found[label] = ratio(*pair)
        return found

    def turn_ratios(self) -> dict[str, list[float]]:
        """Each pair's ratio in each round (100 sites / 1, the page with an exclusion /
        without): of the medians of its two children, run one after the other."""
        found = {}
        for pair, names in TURN_PAIRS.items():
            first, second = (self.results.get(name) for name in names)
            if first is not None and second is not None:
                medians = zip(
                    first["time"]["child_medians"], second["time"]["child_medians"], strict=True
                )
                found[pair] = [b / a for a, b in medians]
        return found

    def lookups(self) -> dict[str, dict[int, float]]:
        """Each site pair's ``site_for_request()`` alone, in seconds, by count of sites."""
        found: dict[str, dict[int, float]] = {}
        for pair in TURN_PAIRS:
            for count in (1, 100):
                result = self.results.get(f"{pair}-{count}")
                if result is not None:
                    found.setdefault(pair, {})[count] = result["time"]["steps"]["lookup"]
        return found

    def same_bytes(self, comparison: str) -> dict[str, bool]:
        """Whether each case whose ``bytes_of_ours`` is ``comparison`` (each floor and
        ours-regex, the drop-in's, the files') wrote exactly the bytes of ours."""
        digests = {name: self.results[name]["time"]["warmup"]["digest"] for name in self.results}
        ours = digests.get("ours")
        return {
            name: digests[name] == ours
            for name in digests
            if BY_NAME[name].bytes_of_ours == comparison and ours is not None
        }
