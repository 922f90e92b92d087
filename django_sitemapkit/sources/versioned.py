"""A keyset section's pages as the index sees them (where each starts, its rows, its
newest ``lastmod``), walked once and then kept up to date from the rows that changed.

``lastmods.page_lastmods()`` walks every page whenever the section's
aggregate moves. Where the rows that changed are known (``SITEMAPKIT_CHANGES``,
docs/changes.md), ``updated()`` reads only the pages they fall in: one
aggregate over each such page's key range. A page whose row count is what it
was keeps its bounds, so only its lastmod is new; one whose count changed
shifts every later page, which are walked again from there (an append at the
end of a section in key order touches its last page alone). A change whose
place in the order cannot be told from Python's comparison of its key (a text
column, whose order is the database's collation) answers ``None``: the caller
walks the section again.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from collections.abc import Iterable, Iterator, Sequence
from functools import cmp_to_key
from typing import Any, NamedTuple

from django.db.models import Count, Max, Min, Q, QuerySet

from django_sitemapkit.sources.keyset import KeyColumn, compared
from django_sitemapkit.sources.pages import LastmodValue, QueryPager, SectionStats
from django_sitemapkit.sources.stored_lastmods import aggregate

#: Key values whose order in Python is their order in SQL (a text column's is the
#: database's collation, which Python does not know).
ORDERED_TYPES = (int, float, decimal.Decimal, dt.date, dt.datetime, dt.time, uuid.UUID)


class Bound(NamedTuple):
    """Where a page starts: after ``values`` (the previous page's last primary key,
    for a key of the primary key alone), or at ``values`` (its first row's key)."""

    values: tuple[Any, ...]
    inclusive: bool


class PageRun(NamedTuple):
    """One page: where it starts (``None``: the section's start), its rows, its lastmod,
    and the key of its first row (what a seek of the page finds, ``kept.py``)."""

    bound: Bound | None
    rows: int
    lastmod: LastmodValue | None
    first: tuple[Any, ...] | None = None


class SectionPages(NamedTuple):
    pages: tuple[PageRun, ...]

    @property
    def stats(self) -> SectionStats:
        rows = sum(page.rows for page in self.pages)
        lastmod = newest_of(page.lastmod for page in self.pages)
        return SectionStats(rows, lastmod, (rows, lastmod))

    @property
    def lastmods(self) -> tuple[LastmodValue | None, ...]:
        return tuple(page.lastmod for page in self.pages)


def newest_of(values: Iterable[LastmodValue | None]) -> LastmodValue | None:
    """The ``MAX()`` of the pages' values (of one column: one type), as the section's
    aggregate reads it."""
    return max((value for value in values if value is not None), default=None)


def aggregates(pager: QueryPager, rows: QuerySet[Any]) -> dict[str, Any]:
    """The count, the newest lastmod (``stored_lastmods.py``) and, for a key of the
    primary key alone, the first and last keys of ``rows``."""
    found: dict[str, Any] = {"count": Count("pk")}
    assert pager.key is not None
    if len(pager.key) == 1:
        descending = pager.key[0].descending
        found["edge"] = Min("pk") if descending else Max("pk")
        found["first"] = Max("pk") if descending else Min("pk")
    return aggregate(rows, pager.section, pager.lastmod_path, **found)


def first_key(bound: Bound | None, stats: dict[str, Any]) -> tuple[Any, ...] | None:
    """A page's first key: its one column's first value, or where it starts from."""
    if "first" in stats:
        return (stats["first"],)
    return None if bound is None else bound.values


def condition(key: Sequence[KeyColumn], bound: Bound) -> Q:
    """The rows at or after ``bound`` in the key's order."""
    if bound.inclusive:
        return compared(key, bound.values, after=True)
    lookup = "lt" if key[0].descending else "gt"
    return Q(**{f"pk__{lookup}": bound.values[0]})


def walk(pager: QueryPager, bound: Bound | None) -> Iterator[PageRun]:
    """Every page from ``bound`` on, each from where the last one ended: one aggregate
    of its first ``page_size`` rows, and for a key of more than the primary key the
    key of the row after them, where the next page starts."""
    assert pager.key is not None
    key, size = pager.key, pager.page_size
    rows = pager.ordered if bound is None else pager.ordered.filter(condition(key, bound))
    while True:
        stats = aggregates(pager, rows[:size])
        if stats["count"] == 0:
            return
        yield PageRun(bound, stats["count"], stats["lastmod"], first_key(bound, stats))
        if stats["count"] < size:
            return
        bound = next_bound(pager, rows, stats.get("edge"))
        if bound is None:
            return
        rows = pager.ordered.filter(condition(key, bound))


def next_bound(pager: QueryPager, page: QuerySet[Any], edge: Any) -> Bound | None:
    assert pager.key is not None
    if len(pager.key) == 1:
        return Bound((edge,), inclusive=False)
    names = [column.name for column in pager.key]
    size = pager.page_size
    following = list(page.values_list(*names)[size : size + 1])
    return Bound(tuple(following[0]), inclusive=True) if following else None


def walked(pager: QueryPager) -> SectionPages:
    return SectionPages(tuple(walk(pager, None)))


def compare_keys(key: Sequence[KeyColumn], left: Sequence[Any], right: Sequence[Any]) -> int:
    for column, a, b in zip(key, left, right, strict=True):
        if a != b:
            less = a < b
            return (1 if less else -1) if column.descending else (-1 if less else 1)
    return 0


def is_from(key: Sequence[KeyColumn], row: tuple[Any, ...], bound: Bound) -> bool:
    """Whether a row of key ``row`` is at or after ``bound`` (Python's comparison)."""
    order = compare_keys(key, row, bound.values)
    return order >= 0 if bound.inclusive else order > 0


def page_of(key: Sequence[KeyColumn], pages: Sequence[PageRun], row: tuple[Any, ...]) -> int:
    """The index of the page whose key range holds ``row``: the last one it is from."""
    low, high = 0, len(pages) - 1
    while low < high:
        middle = (low + high + 1) // 2
        bound = pages[middle].bound
        assert bound is not None
        if is_from(key, row, bound):
            low = middle
        else:
            high = middle - 1
    return low


def comparable(rows: Iterable[tuple[Any, ...]]) -> bool:
    return all(isinstance(value, ORDERED_TYPES) for row in rows for value in row)


def updated(
    pager: QueryPager, known: SectionPages, keys: Iterable[tuple[Any, ...]]
) -> SectionPages | None:
    """``known`` after the rows of ``keys`` (each a key, where a changed row was or is)
    changed; ``None`` if where they fall cannot be told."""
    assert pager.key is not None
    key = pager.key

    def order(left: tuple[Any, ...], right: tuple[Any, ...]) -> int:
        return compare_keys(key, left, right)

    positions = sorted(set(keys), key=cmp_to_key(order))
    if not positions:
        return known
    if not comparable(positions) or not known.pages:
        return None
    pages = list(known.pages)
    for index in sorted({page_of(key, pages, row) for row in positions}):
        run = pages[index]
        last = index == len(pages) - 1
        rows = pager.ordered
        if run.bound is not None:
            rows = rows.filter(condition(key, run.bound))
        if not last:
            following = pages[index + 1].bound
            assert following is not None
            rows = rows.exclude(condition(key, following))
        stats = aggregates(pager, rows)
        count = stats["count"]
        if count == run.rows or (last and 0 < count <= pager.page_size):
            first = first_key(run.bound, stats)
            pages[index] = PageRun(run.bound, count, stats["lastmod"], first)
            continue
        # Its count moved: every later page starts elsewhere now.
        return SectionPages((*pages[:index], *walk(pager, run.bound)))
    return SectionPages(tuple(pages))
