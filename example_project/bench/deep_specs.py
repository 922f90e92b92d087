"""The entries of bench/deep_cases.py in bench/table.py's table (the group ``deep``):
page N at page 1's cost, and the index's 304 without reading the table. Both pairs
read the ``--index-rows`` table (10,000,000 rows by default) and run in turns."""

from __future__ import annotations

from bench.sizes import PAGE_MAX, Plan
from bench.specs import INDEX_TABLE, TURNS, CaseSpec, Prepared, bench_index, no_body

#: The group ``--cases deep``.
DEEP_GROUP = "deep"
MODULE = "bench.deep_cases"


def last_page_urls(plan: Plan, prepared: Prepared) -> int:
    return min(PAGE_MAX, plan.index_rows - (plan.index_pages - 1) * PAGE_MAX)


def first_page_urls(plan: Plan, prepared: Prepared) -> int:
    return min(PAGE_MAX, plan.index_rows)


def deep_cases() -> tuple[CaseSpec, ...]:
    """Each pair's first case is the one the report divides by. No name ends in a count
    of sites (``-1``, ``-100``): the report reads those as the several-sites pairs'."""
    turns = {"run": TURNS, "reads": INDEX_TABLE, "groups": (DEEP_GROUP,), "same_bytes": False}
    return (
        CaseSpec(
            "deep-page-first",
            "page 1 of the index table, warm, in turns with deep-page-last",
            f"{MODULE}:deep_page",
            first_page_urls,
            args=(False,),
            **turns,
        ),
        CaseSpec(
            "deep-page-last",
            "the last page of the index table (200 of 10,000,000 rows), warm",
            f"{MODULE}:deep_page",
            last_page_urls,
            args=(True,),
            **turns,
        ),
        CaseSpec(
            "deep-index-contrib",
            "contrib's full index of the index table, in turns with deep-index-304",
            f"{MODULE}:deep_index",
            bench_index,
            args=(False,),
            lists_sitemaps=True,
            **turns,
        ),
        CaseSpec(
            "deep-index-304",
            "this package's index of the same table, a conditional GET answered 304",
            f"{MODULE}:deep_index",
            no_body,
            args=(True,),
            lists_sitemaps=True,
            **turns,
        ),
    )
