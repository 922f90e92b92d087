"""The fresh-on-commit cases in the report: what a save pays for its record and the
statements it adds, each refresh against the incremental build after the same
changes, and the time from a commit to the new file being served, as text and for
the JSON (see bench/fresh_runs.py)."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from bench.fresh_specs import CHANGED_ROWS, SERVED_CASE, WAYS

#: The longest statement the report prints whole.
SHOWN_SQL = 110


def added_statements(statements: dict[str, list[str]]) -> list[str]:
    """The statements of a save under ``"record"`` that a save under None does not run."""
    extra = Counter(statements["record"]) - Counter(statements["none"])
    return sorted(extra.elements())


def saves(results: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    found = results.get("fresh-save-record")
    if found is None:
        return None
    fresh = found["fresh"]
    return {
        way: {
            **{key: value for key, value in fresh[way].items() if key not in ("times",)},
            "added_statements": added_statements(fresh[way]["statements"]),
        }
        for way in WAYS
    } | {"pairs": fresh["pairs"]}


def refreshes(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for changed in CHANGED_ROWS:
        pair = {how: results.get(f"fresh-{how}-{changed}") for how in ("refresh", "build")}
        if not any(pair.values()):
            continue
        row: dict[str, Any] = {"changed_rows": changed}
        for how, result in pair.items():
            if result is None:
                continue
            fresh = result["fresh"]
            row[how] = {
                "median_s": result["time"]["median"],
                "cpu_median_s": result["time"]["cpu_median"],
                "seconds": result["time"]["seconds"],
                "queries": statistics.median(fresh["queries"]),
                "pages_rewritten": statistics.median_low(fresh["pages_rewritten"]),
                "changed_pages": fresh["changed_pages"],
            }
        if pair["refresh"] and pair["build"]:
            row["build_over_refresh"] = row["build"]["median_s"] / row["refresh"]["median_s"]
            row["build_over_refresh_cpu"] = (
                row["build"]["cpu_median_s"] / row["refresh"]["cpu_median_s"]
            )
            row["by_round"] = [
                build / refresh
                for refresh, build in zip(
                    row["refresh"]["seconds"], row["build"]["seconds"], strict=True
                )
            ]
        rows.append(row)
    return rows


def served(results: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    found = results.get(SERVED_CASE)
    if found is None:
        return None
    fresh = found["fresh"]
    return {
        "median_s": found["time"]["median"],
        "seconds": found["time"]["seconds"],
        "refresh_median_s": statistics.median(fresh["refresh_seconds"]),
        "get_median_s": statistics.median(fresh["get_seconds"]),
        "page": fresh["page"],
    }


def summary(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"saves": saves(results), "refreshes": refreshes(results), "served": served(results)}


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def save_lines(found: dict[str, Any]) -> list[str]:
    lines = [f"  save() of one row, {found['pairs']:,} pairs of saves, medians per save:"]
    for way, what in zip(WAYS, ("in atomic()", "in autocommit"), strict=True):
        figures = found[way]
        lines.append(
            f"    {what}: None {ms(figures['none_wall_median'])} (CPU "
            f'{ms(figures["none_cpu_median"])}), "record" {ms(figures["record_wall_median"])} '
            f"(CPU {ms(figures['record_cpu_median'])}); record / None "
            f"{figures['ratio_of_medians']:.2f}, median of the pairs' ratios "
            f"{figures['median_of_pair_ratios']:.2f}, added {ms(figures['added_median'])}."
        )
        added = figures["added_statements"]
        lines.append(f"      statements a save adds: {len(added)}")
        lines += [
            f"        {sql if len(sql) <= SHOWN_SQL else sql[:SHOWN_SQL] + '...'}" for sql in added
        ]
    return lines


def refresh_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "  after k changed rows (neighbours, from the middle), medians: wall s; CPU s; "
        "statements; pages rewritten:"
    ]
    for row in rows:
        parts = [f"    k = {row['changed_rows']:,} ({_pages(row)} pages changed):"]
        for how in ("refresh", "build"):
            if how in row:
                figures = row[how]
                parts.append(
                    f"{how} {figures['median_s']:.3f}; {figures['cpu_median_s']:.3f}; "
                    f"{figures['queries']:,.0f}; {figures['pages_rewritten']:,}"
                )
        if "build_over_refresh" in row:
            by_round = ", ".join(f"{value:.2f}" for value in row["by_round"])
            parts.append(
                f"build / refresh {row['build_over_refresh']:.2f} (CPU "
                f"{row['build_over_refresh_cpu']:.2f}; by round {by_round})"
            )
        lines.append(" ".join(parts[:1]) + " " + " | ".join(parts[1:]))
    return lines


def _pages(row: dict[str, Any]) -> str:
    figures = row.get("refresh") or row["build"]
    return f"{figures['changed_pages']:,}"


def report_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    found = summary(results)
    if not (found["saves"] or found["refreshes"] or found["served"]):
        return []
    lines = ["Fresh on commit (SITEMAPKIT_CHANGES):"]
    if found["saves"]:
        lines += save_lines(found["saves"])
    if found["refreshes"]:
        lines += refresh_lines(found["refreshes"])
    if found["served"]:
        figures = found["served"]
        seconds = ", ".join(f"{value:.3f}" for value in figures["seconds"])
        lines.append(
            f"  commit to served (page {figures['page']} from the files): median "
            f"{figures['median_s']:.3f} s (the refresh {figures['refresh_median_s']:.3f} s, "
            f"the GET {figures['get_median_s']:.3f} s); runs {seconds}."
        )
    return [*lines, ""]
