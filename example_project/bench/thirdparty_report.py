"""The third-party cases' lines of the report: each package's cases side by side, wall
and CPU medians, and how many times slower than the fastest each one is."""

from __future__ import annotations

from typing import Any

from bench.specs import THIRDPARTY
from bench.table import BY_NAME


def summary(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per package, each case's wall and CPU medians and their ratios to the fastest."""
    packages: dict[str, dict[str, Any]] = {}
    for name, result in results.items():
        if BY_NAME[name].run == THIRDPARTY:
            timed = result["time"]
            packages.setdefault(BY_NAME[name].pair, {})[name] = {
                "wall_median_s": timed["median"],
                "cpu_median_s": timed["cpu_median"],
                "urls": timed["warmup"]["urls"],
            }
    for cases in packages.values():
        wall = min(case["wall_median_s"] for case in cases.values())
        cpu = min(case["cpu_median_s"] for case in cases.values())
        for case in cases.values():
            case["wall_ratio"] = case["wall_median_s"] / wall
            case["cpu_ratio"] = case["cpu_median_s"] / cpu
    return packages


def report_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for package, cases in summary(results).items():
        lines.append(f"{package} (the same locations; medians of the runs in turns):")
        lines += [
            f"  {name}: {case['urls']:,} URLs, {case['wall_median_s']:.3f} s wall "
            f"({case['wall_ratio']:.1f}x), {case['cpu_median_s']:.3f} s CPU "
            f"({case['cpu_ratio']:.1f}x)"
            for name, case in cases.items()
        ]
    return [*lines, ""] if lines else []
