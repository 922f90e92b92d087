"""A section's validator, in one statement the database answers from its indexes: its
row count, its highest primary key and its newest ``lastmod``.

One aggregate of the three (``COUNT(id), MAX(id), MAX(lastmod)``) reads every
row: at 10,000,000 rows that cost a 304 of the index as much as the index
itself (0.72 s of CPU on SQLite). Here each is a scalar subquery of its own,
planned alone: ``MAX(pk)`` is one step down the primary key, ``MAX(lastmod)``
one step down an index on the column (``sitemapkit.W061`` suggests one), and a
bare ``COUNT(*)`` SQLite answers by counting the cells of its smallest index's
pages, not by stepping through rows. It is one statement, so the three values
are read together. The values are those of the aggregate, so the validators
made of them are unchanged.

A query whose rows are groups, distinct, sliced or combined, or a lastmod
across a relation, keeps the one aggregate: there a count of the table's rows
is not the count the aggregate makes.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import F, Func, IntegerField, QuerySet

from django_sitemapkit.sources.stored_lastmods import (
    NewestLastmodOf,
    converters_of,
    loaded,
    resolved,
)

#: The column alias of each scalar subquery.
VALUE = "_sitemapkit_value"


def separable(queryset: QuerySet[Any], lastmod_path: str | None) -> bool:
    """Whether the section's rows are rows of its model's table, filtered, and its
    lastmod a value of each: what a ``COUNT(*)`` and a ``MAX()`` of their own can be
    taken over. (A lastmod across a relation joins in the aggregate, and a count
    beside it counts the joined rows: kept as it was.)"""
    query = queryset.query
    return not (
        "__" in (lastmod_path or "")
        or query.distinct
        or query.is_sliced
        or query.combinator
        or query.group_by is not None
        or any(getattr(value, "contains_aggregate", False) for value in query.annotations.values())
    )


def summary(
    queryset: QuerySet[Any],
    lastmod_path: str | None,
    seek: QuerySet[Any] | None = None,
    *,
    section: str,
) -> tuple[Any, ...]:
    """``(rows, highest primary key, newest lastmod)`` of ``queryset``; the lastmod is
    ``None`` without a ``lastmod_path``, and the newest that is a date where the
    ``MAX()`` is none (``stored_lastmods.py``, logged for ``section``).
    ``separable(queryset, lastmod_path)`` must hold. With ``seek`` (one value of one
    row), its value too, read in the same statement: the start of a page and the
    validator it is kept under, of one state of the rows."""
    if lastmod_path is None:
        found = values_of(queryset, None, seek)
        return (found[0], found[1], None, *found[2:])
    found = loaded(lambda lastmod: values_of(queryset, lastmod, seek), section, lastmod_path)
    newest = resolved(found[2], queryset.order_by(), section, lastmod_path)
    return (found[0], found[1], newest, *found[3:])


def values_of(queryset: QuerySet[Any], lastmod: Any, seek: QuerySet[Any] | None) -> list[Any]:
    """The statement's values, each as the ORM converts it; the lastmod's (if ``lastmod``)
    as ``stored_lastmods.checked()`` reads it."""
    rows = queryset.order_by()
    parts = [
        rows.annotate(**{VALUE: Func(template="COUNT(*)", output_field=IntegerField())}),
        rows.annotate(**{VALUE: Func(F("pk"), function="MAX")}),
    ]
    if lastmod is not None:
        parts.append(rows.annotate(**{VALUE: NewestLastmodOf(lastmod)}))
    alias = queryset.db
    connection = connections[alias]
    try:
        compiled = [part.values(VALUE).query.get_compiler(alias).as_sql() for part in parts]
        if seek is not None:
            compiled.append(seek.query.get_compiler(alias).as_sql())
    except EmptyResultSet:  # .none(): no rows, and no statement to ask
        return [0, None, *[None] * (len(parts) - 2), *([] if seek is None else [None])]
    sql = ", ".join(f"({part})" for part, _ in compiled)
    params = [param for _, part_params in compiled for param in part_params]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql}{connection.features.bare_select_suffix}", params)
        values = cursor.fetchone()
    expressions = [part.query.annotations[VALUE] for part in parts]
    if seek is not None:
        expressions.append(seek.query.select[0])
    found = []
    for expression, value in zip(expressions, values, strict=True):
        # The converters the ORM applies to the column (SQLite keeps datetimes as text).
        for converter in converters_of(expression, connection):
            value = converter(value, expression, connection)
        found.append(value)
    return [int(found[0]), *found[1:]]
