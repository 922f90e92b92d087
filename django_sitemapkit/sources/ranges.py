"""Key ranges of a queryset section: where ranges of a given size start, what each
range holds now, and its rows.

A build cuts a section into ranges of its ordering key (``keyset.py``) and
keeps the cuts from one build to the next, so a row inserted or deleted in
the middle changes one range only. These queries read the key's columns and
aggregates, which an index on the key answers without reading the rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, NamedTuple

from django.db import models
from django.db.models import Count, IntegerField, QuerySet, Sum, Value

from django_sitemapkit.sources.keyset import between
from django_sitemapkit.sources.pages import QueryPager, Scope, pages_of
from django_sitemapkit.sources.rows import Chunk
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.sources.stored_lastmods import NewestLastmod, loaded, resolved

Key = tuple[Any, ...]
# One query compares this many ranges at most (SQLite takes at most 500 terms
# in one UNION, SQLITE_MAX_COMPOUND_SELECT).
RANGES_PER_QUERY = 64
# What the grouped query calls its values: no model field of a project's may
# share a name with an annotation, so they are named in the package's own prefix.
RANGE_ALIAS = "sitemapkit_range"
ROWS, LASTMOD, KEY_SUM = "sitemapkit_rows", "sitemapkit_lastmod", "sitemapkit_key_sum"
INTEGER_FIELDS = {
    "AutoField",
    "BigAutoField",
    "SmallAutoField",
    "IntegerField",
    "BigIntegerField",
    "SmallIntegerField",
    "PositiveIntegerField",
    "PositiveBigIntegerField",
    "PositiveSmallIntegerField",
}


class RangeStats(NamedTuple):
    """What the database says about a range now, to compare with what a build recorded.

    ``key_sum`` (the sum of the primary keys, when they are integers) changes
    when one row replaces another, which a count alone would not see.
    """

    rows: int
    lastmod: Any
    key_sum: int | None


EMPTY = RangeStats(0, None, None)


def has_integer_pk(model: type[models.Model]) -> bool:
    return model._meta.pk.get_internal_type() in INTEGER_FIELDS


def starts(pager: QueryPager, low: Key | None, high: Key | None, every: int) -> list[Key]:
    """The keys of the rows at ``every``, ``2 * every``, ... of the range from ``low`` to
    ``high``: where ranges of ``every`` rows start after the first.

    Each is found from the one before, ``every`` rows on, so the database
    steps over each row once whatever the range's size.
    """
    assert pager.key is not None
    names = [column.name for column in pager.key]
    found: list[Key] = []
    start = low
    while True:
        rows = pager.ordered.filter(between(pager.key, start, high)).values_list(*names)
        following = list(rows[every : every + 1])
        if not following:
            return found
        start = tuple(following[0])
        found.append(start)


def range_stats(
    pager: QueryPager, lows: Sequence[Key | None], high: Key | None
) -> list[RangeStats]:
    """The stats of each range from ``lows[i]`` to ``lows[i + 1]`` (the last one up to
    ``high``), in grouped queries of at most ``RANGES_PER_QUERY`` ranges."""
    stats: list[RangeStats] = []
    for first in range(0, len(lows), RANGES_PER_QUERY):
        batch = list(lows[first : first + RANGES_PER_QUERY])
        stop = lows[first + len(batch)] if first + len(batch) < len(lows) else high
        stats += batch_stats(pager, batch, stop)
    return stats


def batch_stats(pager: QueryPager, lows: list[Key | None], high: Key | None) -> list[RangeStats]:
    """One query for the ranges of ``lows``: an aggregate of each range, numbered, the
    aggregates joined with ``UNION ALL``.

    Each range is read through the key's index on its own, which costs each
    row once; grouping the rows by a ``CASE`` of the ranges' bounds instead
    tests every row against the bounds in turn (three times slower on SQLite
    over 20 ranges of a million rows). A range whose ``MAX()`` is no date is dated
    by its newest lastmod that is (``stored_lastmods.py``).
    """
    queryset = pager.ordered.order_by()
    if pager.key is None:
        # A section without a key is one range, the whole of it.
        assert lows == [None]
        assert high is None
    parts = []
    for number, low in enumerate(lows):
        part = queryset
        if pager.key is not None:
            stop = lows[number + 1] if number + 1 < len(lows) else high
            part = part.filter(between(pager.key, low, stop))
        parts.append(part)
    path = pager.lastmod_path
    if path is None:
        found = united_stats(parts, None)
    else:
        found = loaded(partial(united_stats, parts), pager.section, path)
    stats = [stats_of(found.get(i)) for i in range(len(lows))]
    if path is None:
        return stats
    return [
        each._replace(lastmod=resolved(each.lastmod, part, pager.section, path))
        for each, part in zip(stats, parts, strict=True)
    ]


def united_stats(parts: list[QuerySet[Any]], lastmod: Any) -> dict[int, dict[str, Any]]:
    """Each part's aggregates, by its number, from one ``UNION ALL``; the lastmod (if
    ``lastmod``) as ``stored_lastmods.checked()`` reads it."""
    aggregates: dict[str, Any] = {ROWS: Count("pk")}
    if lastmod is not None:
        aggregates[LASTMOD] = NewestLastmod(lastmod)
    if has_integer_pk(parts[0].model):
        aggregates[KEY_SUM] = Sum("pk")
    numbered = [
        part.annotate(**{RANGE_ALIAS: Value(number, output_field=IntegerField())})
        .values(RANGE_ALIAS)
        .annotate(**aggregates)
        for number, part in enumerate(parts)
    ]
    united = numbered[0].union(*numbered[1:], all=True) if len(numbered) > 1 else numbered[0]
    # Django 6.1.3 orders the union by the model's Meta.ordering, columns none of
    # its parts selects, which SQLite and PostgreSQL refuse; the ranges are found
    # by number, so no order is needed.
    return {row[RANGE_ALIAS]: row for row in united.order_by()}


def stats_of(row: dict[str, Any] | None) -> RangeStats:
    if row is None or not row[ROWS]:
        return EMPTY
    key_sum = row.get(KEY_SUM)
    # PostgreSQL sums a bigint column as numeric, which psycopg reads as a Decimal.
    return RangeStats(row[ROWS], row.get(LASTMOD), None if key_sum is None else int(key_sum))


def range_chunks(
    pager: QueryPager, low: Key | None, high: Key | None, tally: Tally | None = None
) -> Iterator[tuple[int, Chunk]]:
    """The rows from ``low`` to ``high`` in the section's order, cut into pages of
    ``page_size`` rows, each chunk with its page's index within the range."""
    rows, keys = pager.row_queryset, pager.ordered
    if pager.key is not None:
        condition = between(pager.key, low, high)
        rows, keys = rows.filter(condition), keys.filter(condition)
    return pages_of(pager.read(Scope(rows, keys, 0, None), tally), pager.page_size)
