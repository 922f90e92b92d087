"""The benchmark's fresh-on-commit cases (example_project/bench/fresh_specs.py): the
saves in two modes, each refresh paired with today's incremental build after the same
changed rows, commit to served, and the index with and without the change record.
Only the case table and its arithmetic are read: no case runs here."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

EXAMPLE_PROJECT = Path(__file__).resolve().parents[1] / "example_project"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The benchmark's case table, imported as the benchmark's processes import it."""
    monkeypatch.syspath_prepend(str(EXAMPLE_PROJECT))
    return import_module("bench.table")


@pytest.fixture
def specs(bench: Any) -> Any:
    return import_module("bench.fresh_specs")


def test_the_fresh_group_holds_every_case_the_issue_measures_in_order(bench: Any) -> None:
    assert bench.GROUPS["fresh"] == (
        "fresh-save-none",
        "fresh-save-record",
        "fresh-refresh-1",
        "fresh-build-1",
        "fresh-refresh-100",
        "fresh-build-100",
        "fresh-refresh-10000",
        "fresh-build-10000",
        "fresh-served",
        "fresh-index-304-none",
        "fresh-index-304-record",
        "fresh-index-full-none",
        "fresh-index-full-record",
    )
    # Not in the default run: each needs the big tables and builds of its own.
    assert not set(bench.GROUPS["fresh"]) & set(bench.GROUPS["default"])


def test_each_case_runs_where_its_pairing_is_made(bench: Any) -> None:
    specs = [bench.BY_NAME[name] for name in bench.GROUPS["fresh"]]
    assert [(spec.name, spec.run, spec.reads, spec.make, spec.args) for spec in specs] == [
        ("fresh-save-none", "fresh", "page", "bench.changes_cases:measure_saves", ()),
        ("fresh-save-record", "fresh", "page", "bench.changes_cases:measure_saves", ()),
        *(
            (
                f"fresh-{how}-{rows}",
                "fresh",
                "build",
                "bench.refresh_cases:measure_refresh",
                (how, rows),
            )
            for rows in (1, 100, 10_000)
            for how in ("refresh", "build")
        ),
        ("fresh-served", "fresh", "build", "bench.refresh_cases:commit_to_served", ()),
        *(
            (
                f"fresh-index-{document}-{mode}",
                "turns",
                "build",
                "bench.index_cases:index_case",
                (document == "full", None if mode == "none" else "record"),
            )
            for document in ("304", "full")
            for mode in ("none", "record")
        ),
    ]


def test_the_index_modes_run_in_turns_and_only_the_304s_must_be_the_same_bytes(
    bench: Any,
) -> None:
    assert {pair: bench.TURN_PAIRS[pair] for pair in bench.TURN_PAIRS if "fresh" in pair} == {
        "fresh-index-304": ("fresh-index-304-none", "fresh-index-304-record"),
        "fresh-index-full": ("fresh-index-full-none", "fresh-index-full-record"),
    }
    assert {
        name: bench.BY_NAME[name].same_bytes for name in bench.GROUPS["fresh"] if "index" in name
    } == {
        "fresh-index-304-none": True,
        "fresh-index-304-record": True,
        # Each timed index follows a save of its own, dated by the clock.
        "fresh-index-full-none": False,
        "fresh-index-full-record": False,
    }


def test_the_report_divides_the_record_by_none_and_the_build_by_the_refresh(bench: Any) -> None:
    ratios = [
        (r.numerator, r.denominator, r.measure) for r in bench.RATIOS if "fresh" in r.numerator
    ]
    assert ratios == [
        ("fresh-index-304-record", "fresh-index-304-none", "time"),
        ("fresh-index-full-record", "fresh-index-full-none", "time"),
        ("fresh-save-record", "fresh-save-none", "time"),
        ("fresh-build-1", "fresh-refresh-1", "time"),
        ("fresh-build-100", "fresh-refresh-100", "time"),
        ("fresh-build-10000", "fresh-refresh-10000", "time"),
    ]


def test_each_case_expects_no_body_the_served_page_or_the_whole_index(
    bench: Any, specs: Any
) -> None:
    plan = import_module("bench.sizes").Plan(rows=50_000, build_rows=10_000_000, index_rows=1)
    expected = {
        name: bench.BY_NAME[name].expects(plan, {"other_pages": 1})
        for name in bench.GROUPS["fresh"]
    }
    assert expected == {
        **dict.fromkeys(bench.GROUPS["fresh"], 0),
        "fresh-served": 50_000,
        # 200 pages of bench, and the example's other section's one.
        "fresh-index-full-none": 201,
        "fresh-index-full-record": 201,
    }
    assert specs.served_page(plan) == 101


@pytest.mark.parametrize(
    ("rows", "count", "first", "last", "pages"),
    [
        (1_000_000, 1, 500_001, 500_001, 1),
        (1_000_000, 100, 500_001, 500_100, 1),
        (10_000_000, 10_000, 5_000_001, 5_010_000, 1),
        # A table of a page and a half: its middle row is in the middle of page 1, so
        # the rows run into page 2.
        (75_000, 10_000, 37_501, 47_500, 1),
        (60_000, 20_000, 30_001, 50_000, 1),
        (60_000, 20_001, 30_001, 50_001, 2),
        # No row past the table's last.
        (10, 100, 6, 10, 1),
    ],
)
def test_the_changed_rows_are_neighbours_from_the_middle_of_the_table(
    specs: Any, rows: int, count: int, first: int, last: int, pages: int
) -> None:
    keys = specs.changed_keys(rows, count)
    assert (keys[0], keys[-1], len(keys), specs.pages_of(keys)) == (
        first,
        last,
        last - first + 1,
        pages,
    )
    assert keys == list(range(first, last + 1))
