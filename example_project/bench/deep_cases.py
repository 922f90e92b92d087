"""The cases of issue 32's pages lane (the group ``deep``, bench/deep_specs.py): page 200
of the index table against its page 1, and the index's conditional GET against
contrib's full index, each pair in turns (bench/turns.py).

A page is read warm, as a running server reads it: the checked warm-up run is its
first request (which seeks its start key, or finds it kept), the timed runs the
next ones. The index cases are bench/serving_cases.py's, over the same table.
"""

from __future__ import annotations

from bench.measuring import Case
from bench.serving_cases import ContribIndex, OursIndex, OursServe
from bench.sizes import PAGE_MAX, Plan
from bench.sources import IndexBenchSource


def deep_page(plan: Plan, last: bool) -> Case:
    """Page 1, or the last page (200 of 10,000,000 rows), of the index table."""
    return OursServe(plan.index_pages if last else 1, PAGE_MAX, IndexBenchSource)


def deep_index(plan: Plan, conditional: bool) -> Case:
    """This package's index answered 304, or contrib's full index, over the index table."""
    return OursIndex(True) if conditional else ContribIndex()
