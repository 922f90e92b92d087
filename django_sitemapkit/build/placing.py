"""Where a key falls among a section's recorded shards: the last shard whose low is
at or before it, in the order of the section's key (``sources/keyset.py``).

Where the database orders the key's columns as Python orders their values, the
lows are bisected here, without a query. A text column is in Python's order
(code points) only under SQLite's default ``BINARY`` collation, which compares
the UTF-8 bytes (sqlite.org/datatype3.html, section 7.1); PostgreSQL's and
MySQL's collations follow a locale, so there the database places each row
itself (``held()``), and each key a row had before (``placed()``), in one query
per ``LOWS_PER_QUERY`` shards.
"""

from __future__ import annotations

import functools
import operator
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connections, models
from django.db.models import Case, IntegerField, Q, Value, When
from django.db.models.functions import Cast, Collate
from django.db.models.lookups import (
    Exact,
    GreaterThan,
    GreaterThanOrEqual,
    LessThan,
    LessThanOrEqual,
    Lookup,
)
from django.db.models.sql import Query

from django_sitemapkit.sources.keyset import KeyColumn, from_start
from django_sitemapkit.sources.pages import QueryPager
from django_sitemapkit.sources.ranges import INTEGER_FIELDS, Key

#: Primary keys in one ``IN (...)`` (SQLite's least limit of parameters is 999).
ROWS_PER_QUERY = 500
#: Lows one query compares a row with (a few parameters each).
LOWS_PER_QUERY = 64
#: The alias of a row's shard in ``held()``, in the package's prefix (``ranges.py``).
SHARD = "sitemapkit_shard"
#: Columns whose order in every database is Python's order of their values: the
#: integers (``ranges.INTEGER_FIELDS``), dates, times, numbers, booleans, UUIDs.
PYTHON_ORDER = INTEGER_FIELDS | {
    "DateField",
    "DateTimeField",
    "TimeField",
    "DecimalField",
    "FloatField",
    "BooleanField",
    "UUIDField",
}
TEXT = {"CharField", "SlugField", "TextField", "EmailField", "URLField"}


@functools.total_ordering
class Descending:
    """A value of a descending key column, ordered backwards."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.value == other.value

    def __lt__(self, other: Descending) -> bool:
        return bool(other.value < self.value)

    __hash__ = None  # type: ignore[assignment]


def column_field(model: type[models.Model], column: KeyColumn) -> Any:
    return model._meta.pk if column.name == "pk" else model._meta.get_field(column.name)


def is_pk(model: type[models.Model], column: KeyColumn) -> bool:
    return column.name in ("pk", model._meta.pk.name)


def python_order(pager: QueryPager) -> bool:
    """Whether the database orders the section's key as Python orders its values."""
    assert pager.key is not None
    model, vendor = pager.ordered.model, connections[pager.ordered.db].vendor
    for column in pager.key:
        found = column_field(model, column)
        kind = found.get_internal_type()
        binary = vendor == "sqlite" and not getattr(found, "db_collation", None)
        if kind not in PYTHON_ORDER and not (kind in TEXT and binary):
            return False
    return True


def bisected(key: Sequence[KeyColumn], lows: Sequence[Key | None], keys: list[Key]) -> set[int]:
    """The shard of each of ``keys``, by the shards' ``lows`` (the first is ``None``)."""
    bounds = [sortable(key, low or ()) for low in lows[1:]]
    return {bisect_right(bounds, sortable(key, values)) for values in keys}


def sortable(key: Sequence[KeyColumn], values: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(
        Descending(value) if column.descending else value
        for column, value in zip(key, values, strict=True)
    )


def held(
    rows: models.QuerySet[Any], key: Sequence[KeyColumn], lows: Sequence[Key | None]
) -> dict[Any, int]:
    """The shard each of ``rows`` is in (by primary key), placed by the database: the
    last low it is at or after (a ``CASE`` whose first true branch is the latest low)."""
    if len(lows) == 1:
        return dict.fromkeys(rows.values_list("pk", flat=True).order_by(), 0)
    found: dict[Any, int] = {}
    for numbered in chunks(lows):
        branches = [When(from_start(key, low), then=Value(number)) for number, low in numbered]
        shard = Case(*branches, default=Value(0), output_field=IntegerField())
        for pk, number in rows.annotate(**{SHARD: shard}).values_list("pk", SHARD).order_by():
            found[pk] = max(found.get(pk, 0), number)
    return found


def chunks(lows: Sequence[Key | None]) -> Iterator[list[tuple[int, Key]]]:
    """The lows after the first, numbered, latest first, ``LOWS_PER_QUERY`` at a time."""
    for first in range(1, len(lows), LOWS_PER_QUERY):
        numbered = enumerate(lows[first : first + LOWS_PER_QUERY], first)
        yield [(number, low) for number, low in reversed(list(numbered)) if low is not None]


def placed(
    model: type[models.Model],
    key: Sequence[KeyColumn],
    lows: Sequence[Key | None],
    keys: list[Key],
    alias: str,
) -> set[int]:
    """The shard of each of ``keys`` (rows that are gone, or were elsewhere), placed by
    the database: their values compared with the lows as it compares the columns'."""
    query = Query(model)
    compiler = query.get_compiler(using=alias)
    found = set()
    for values in keys:
        number = 0
        for numbered in chunks(lows):
            branches = [
                When(at_or_after(model, key, values, low), then=Value(position))
                for position, low in numbered
            ]
            shard = Case(*branches, default=Value(0), output_field=IntegerField())
            sql, params = compiler.compile(shard.resolve_expression(query))
            with connections[alias].cursor() as cursor:
                cursor.execute(f"SELECT {sql}", params)
                number = max(number, cursor.fetchone()[0])
        found.add(number)
    return found


def at_or_after(model: type[models.Model], key: Sequence[KeyColumn], values: Key, low: Key) -> Q:
    """``values`` at or after ``low`` in the order of ``key``, as ``keyset.from_start()``
    says it of a row's columns, each value cast to its column's type and collation."""
    branches: list[Q] = []
    equal: list[Any] = []
    for position, (column, value, start) in enumerate(zip(key, values, low, strict=True)):
        field = column_field(model, column)
        mine, theirs = literal(value, field), literal(start, field)
        last = position == len(key) - 1
        compared: type[Lookup[Any]]
        if column.descending:
            compared = LessThanOrEqual if last else LessThan
        else:
            compared = GreaterThanOrEqual if last else GreaterThan
        branches.append(Q(*equal, compared(mine, theirs)))
        equal.append(Exact(mine, theirs))
    return functools.reduce(operator.or_, branches)


def literal(value: Any, field: Any) -> Any:
    """``value`` as the database holds it in the column of ``field``."""
    cast = Cast(Value(value), output_field=field)
    collation = getattr(field, "db_collation", None)
    return Collate(cast, collation) if collation else cast


def batches(values: set[Any]) -> Iterator[list[Any]]:
    ordered = sorted(values, key=repr)
    for first in range(0, len(ordered), ROWS_PER_QUERY):
        yield ordered[first : first + ROWS_PER_QUERY]


def key_before(
    model: type[models.Model], key: Sequence[KeyColumn], pk: Any, before: dict[str, Any]
) -> Key | None:
    """The key a row had before its record (``before``: by attribute name); ``None`` if
    the record has not every column of it (recorded for another ordering)."""
    values = []
    for column in key:
        if is_pk(model, column):
            values.append(pk)
            continue
        attname = getattr(column_field(model, column), "attname", column.name)
        if attname not in before:
            return None
        values.append(before[attname])
    return tuple(values)
