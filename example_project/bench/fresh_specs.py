"""The fresh-on-commit cases of bench/table.py's table (``SITEMAPKIT_CHANGES``, the
group ``fresh``): what a model's ``save()`` pays for its change record, what a
refresh costs after 1, 100 and 10,000 changed rows against today's incremental
build after the same changes, the time from a commit to the new file being
served, and the database-served index with and without the change record.

The save, refresh and served cases run in children of bench/fresh_runs.py
(``FRESH``), paired within a child or in alternating rounds; the index cases in
turns, as the several-sites pairs (bench/index_cases.py makes them).
"""

from __future__ import annotations

from typing import Any

from bench.sizes import PAGE_MAX, Plan
from bench.specs import (
    BUILD_TABLE,
    PAGE_TABLE,
    TURNS,
    CaseSpec,
    Expect,
    Prepared,
    no_body,
)

#: How the parent runs the save, refresh and served cases (bench/fresh_runs.py).
FRESH = "fresh"
#: The group ``--cases fresh``.
FRESH_GROUP = "fresh"
#: Changed rows before a refresh (and before the incremental build it is paired with).
CHANGED_ROWS = (1, 100, 10_000)
#: What the report divides: a save with its record by one without, today's incremental
#: build by the refresh after the same changes.
FRESH_RATIOS = (
    ("fresh-save-record", "fresh-save-none"),
    *((f"fresh-build-{rows}", f"fresh-refresh-{rows}") for rows in CHANGED_ROWS),
)
#: The commit-to-served case.
SERVED_CASE = "fresh-served"
#: SITEMAPKIT_CHANGES of the saves and the index cases by name: today's and the record's.
SETTING: dict[str, str | None] = {"none": None, "record": "record"}
MODES = tuple(SETTING)
#: How the saves are made: in ``atomic()`` (a request's transaction), and in autocommit.
WAYS = ("atomic", "autocommit")
#: Pairs of saves per ``--runs``: 3 runs are 300 pairs of each way of saving.
PAIRS_PER_RUN = 100


def changed_keys(rows: int, count: int) -> list[int]:
    """``count`` neighbouring rows from the middle of the table, as a bulk edit of
    related rows makes them: one page of 50,000 holds 10,000 (the middle of a table of
    whole pages starts a page). Rows spread over the table would change a page each,
    and measure the rendering of that many pages, which a full build bounds."""
    first = rows // 2 + 1
    return list(range(first, min(first + count, rows + 1)))


def pages_of(keys: list[int]) -> int:
    """The 50,000-URL pages the rows of ``keys`` are on, in a table of the series."""
    return len({(key - 1) // PAGE_MAX for key in keys})


def served_page(plan: Plan) -> int:
    """The page of the build table whose row the served case changes: its middle one."""
    return (plan.build_rows // 2) // PAGE_MAX + 1


def served_urls(plan: Plan, prepared: Prepared) -> int:
    return min(PAGE_MAX, plan.build_rows - (served_page(plan) - 1) * PAGE_MAX)


def build_index(plan: Plan, prepared: Prepared) -> int:
    """The index of every section: the build table's pages and the example's others."""
    return -(-plan.build_rows // PAGE_MAX) + int(prepared["other_pages"])


def fresh(name: str, what: str, make: str, expects: Expect, *args: Any, **spec: Any) -> CaseSpec:
    return CaseSpec(
        name,
        what,
        make,
        expects,
        args=args,
        run=FRESH,
        groups=(FRESH_GROUP,),
        same_bytes=False,
        **spec,
    )


def index_case(document: str, mode: str) -> CaseSpec:
    """The index (``full`` after one change, or a ``304``) with SITEMAPKIT_CHANGES ``mode``,
    in turns with the other mode's."""
    full = document == "full"
    return CaseSpec(
        f"fresh-index-{document}-{mode}",
        ("the full index after one saved row" if full else "the index's conditional GET (304)")
        + f", SITEMAPKIT_CHANGES {'None' if mode == 'none' else repr(mode)}",
        "bench.index_cases:index_case",
        build_index if full else no_body,
        args=(full, SETTING[mode]),
        run=TURNS,
        reads=BUILD_TABLE,
        groups=(FRESH_GROUP,),
        lists_sitemaps=True,
        same_bytes=not full,
    )


def fresh_cases() -> tuple[CaseSpec, ...]:
    return (
        *(
            fresh(
                f"fresh-save-{mode}",
                f"a row's save() in a transaction, SITEMAPKIT_CHANGES "
                f"{'None' if mode == 'none' else repr(mode)}, per save, paired in one child",
                "bench.changes_cases:measure_saves",
                no_body,
                reads=PAGE_TABLE,
            )
            for mode in MODES
        ),
        *(
            fresh(
                f"fresh-{how}-{rows}",
                (
                    f"refresh_changes() after {rows:,} changed row{'' if rows == 1 else 's'}"
                    if how == "refresh"
                    else f"build_sitemaps (incremental) after the same {rows:,} change"
                    f"{'' if rows == 1 else 's'}"
                ),
                "bench.refresh_cases:measure_refresh",
                no_body,
                how,
                rows,
                reads=BUILD_TABLE,
                builds=True,
            )
            for rows in CHANGED_ROWS
            for how in ("refresh", "build")
        ),
        fresh(
            SERVED_CASE,
            "a row saved, refresh_changes(), its page served from the files: commit to served",
            "bench.refresh_cases:commit_to_served",
            served_urls,
            reads=BUILD_TABLE,
            builds=True,
        ),
        *(index_case(document, mode) for document in ("304", "full") for mode in MODES),
    )
