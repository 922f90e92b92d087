"""The fresh-on-commit cases in the benchmark's report (example_project/bench/fresh_report.py):
the statements a save adds, each refresh against the build after the same changes, and
commit to served, from the figures bench/fresh_runs.py gathers. No case runs here."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

EXAMPLE_PROJECT = Path(__file__).resolve().parents[1] / "example_project"
INSERT = 'INSERT INTO "sitemapkit_change" ("model", "row", "before", "at") VALUES (...)'
UPDATE = 'UPDATE "bench_page" SET "slug" = ..., "updated_at" = ... WHERE "id" = 1'


@pytest.fixture
def report(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(EXAMPLE_PROJECT))
    return import_module("bench.fresh_report")


def save_way(none: float, record: float) -> dict[str, Any]:
    return {
        "none_wall_median": none,
        "none_cpu_median": none / 2,
        "record_wall_median": record,
        "record_cpu_median": record / 2,
        "ratio_of_medians": record / none,
        "median_of_pair_ratios": 1.25,
        "added_median": record - none,
        "times": {},
        "statements": {"none": [UPDATE], "record": [UPDATE, INSERT]},
    }


def timed(seconds: list[float], cpu: list[float], **fresh: Any) -> dict[str, Any]:
    return {
        "time": {"median": sorted(seconds)[1], "seconds": seconds, "cpu_median": sorted(cpu)[1]},
        "fresh": fresh,
    }


RESULTS = {
    "fresh-save-record": {
        "fresh": {
            "pairs": 300,
            "atomic": save_way(0.0008, 0.001),
            "autocommit": save_way(0.0006, 0.0012),
        }
    },
    "fresh-refresh-1": timed(
        [0.2, 0.1, 0.4],
        [0.1, 0.05, 0.2],
        queries=[9, 9, 10],
        pages_rewritten=[1, 1, 1],
        changed_pages=1,
    ),
    "fresh-build-1": timed(
        [4.0, 3.0, 2.0],
        [2.0, 1.5, 1.0],
        queries=[80, 80, 80],
        pages_rewritten=[1, 1, 1],
        changed_pages=1,
    ),
    "fresh-served": {
        "time": {"median": 0.5, "seconds": [0.6, 0.5, 0.4]},
        "fresh": {"refresh_seconds": [0.3, 0.2, 0.1], "get_seconds": [0.3, 0.3, 0.3], "page": 11},
    },
}


def test_the_statements_a_save_adds_are_those_of_record_less_those_of_none(report: Any) -> None:
    assert report.added_statements({"none": [UPDATE], "record": [INSERT, UPDATE]}) == [INSERT]
    # A statement run twice under "record" and once under None is added once.
    assert report.added_statements({"none": [UPDATE], "record": [UPDATE, UPDATE]}) == [UPDATE]


def test_the_report_lines(report: Any) -> None:
    assert report.report_lines(RESULTS) == [
        "Fresh on commit (SITEMAPKIT_CHANGES):",
        "  save() of one row, 300 pairs of saves, medians per save:",
        '    in atomic(): None 0.800 ms (CPU 0.400 ms), "record" 1.000 ms (CPU 0.500 ms); '
        "record / None 1.25, median of the pairs' ratios 1.25, added 0.200 ms.",
        "      statements a save adds: 1",
        f"        {INSERT}",
        '    in autocommit: None 0.600 ms (CPU 0.300 ms), "record" 1.200 ms (CPU 0.600 ms); '
        "record / None 2.00, median of the pairs' ratios 1.25, added 0.600 ms.",
        "      statements a save adds: 1",
        f"        {INSERT}",
        "  after k changed rows (neighbours, from the middle), medians: wall s; CPU s; "
        "statements; pages rewritten:",
        "    k = 1 (1 pages changed): refresh 0.200; 0.100; 9; 1 | build 3.000; 1.500; 80; 1 "
        "| build / refresh 15.00 (CPU 15.00; by round 20.00, 30.00, 5.00)",
        "  commit to served (page 11 from the files): median 0.500 s (the refresh 0.200 s, "
        "the GET 0.300 s); runs 0.600, 0.500, 0.400.",
        "",
    ]


def test_a_refresh_without_its_build_has_no_ratio_and_no_run_says_nothing(report: Any) -> None:
    alone = {"fresh-refresh-1": RESULTS["fresh-refresh-1"]}
    assert [set(row) for row in report.refreshes(alone)] == [{"changed_rows", "refresh"}]
    assert report.report_lines({}) == []
