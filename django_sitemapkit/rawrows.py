"""Rows as the database cursor returns them, with only the conversions a sitemap needs.

A ``values()`` queryset turns each row into a dict and runs Django's
converters over every value in Python, most of which a sitemap then formats
straight back into text. Here the same compiled query is executed through the
same cursor machinery (a server-side cursor on PostgreSQL, like
``QuerySet.iterator()``), rows stay tuples, and each column the entries read
gets a reader that applies exactly the converters the ORM would, in the same
order. So a value read here is the value ``values()`` would have given.

One conversion is skipped where it provably changes nothing: a ``lastmod``
datetime that SQLite hands back naive, from a database connection in UTC
with ``USE_TZ``, is the UTC time Django would make aware and the formatter
would write in UTC again; it is formatted directly (see ``lastmod_reader``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.db.models.sql.constants import MULTI

from django_sitemapkit.values import format_lastmod

Row = Sequence[Any]


class RawColumns:
    """Where each field path sits in a raw row of a ``values()`` queryset, and how to read it."""

    def __init__(self, queryset: QuerySet[Any]) -> None:
        query = queryset.query
        compiler = query.get_compiler(queryset.db)
        # Compiling fills compiler.select, the columns in the order the cursor returns them.
        compiler.as_sql()
        # The names ValuesIterable gives the same positions.
        names = list(query.selected or ()) or [
            *query.extra_select,
            *query.values_select,
            *query.annotation_select,
        ]
        expressions = [selected[0] for selected in compiler.select[: compiler.col_count]]
        self.connection = compiler.connection
        self.positions = {name: position for position, name in enumerate(names)}
        self.converters: dict[str, tuple[list[Any], Any]] = {
            names[position]: converters
            for position, converters in compiler.get_converters(expressions).items()
        }

    def reader(self, path: str) -> Callable[[Row], Any]:
        """A function from a raw row to the value ``values()`` gives for ``path``."""
        position = self.positions[path]
        if path not in self.converters:
            return itemgetter(position)
        converters, expression = self.converters[path]
        connection = self.connection

        def read(row: Row) -> Any:
            value = row[position]
            for convert in converters:
                value = convert(value, expression, connection)
            return value

        return read

    def lastmod_reader(self, path: str) -> Callable[[Row], str | None]:
        """A function from a raw row to its formatted ``lastmod``."""
        read = self.reader(path)

        def formatted(row: Row) -> str | None:
            value = read(row)
            return None if value is None else format_lastmod(value)

        if not self.stores_utc_datetimes(path):
            return formatted
        position = self.positions[path]

        def direct(row: Row) -> str | None:
            value = row[position]
            if type(value) is dt.datetime and value.tzinfo is None:
                # Django would make it aware in UTC and format_lastmod() would
                # write that UTC time to the second: the same text as this.
                return value.isoformat(timespec="seconds") + "+00:00"
            return formatted(row)

        return direct

    def stores_utc_datetimes(self, path: str) -> bool:
        """Whether the column's only conversion is SQLite's "make it aware in UTC"."""
        ops = self.connection.ops
        if self.connection.vendor != "sqlite" or path not in self.converters:
            return False
        converters, expression = self.converters[path]
        return (
            settings.USE_TZ
            and self.connection.timezone_name == "UTC"
            and converters == [ops.convert_datetimefield_value]
            and expression.output_field.get_internal_type() == "DateTimeField"
        )


def raw_rows(queryset: QuerySet[Any], chunk_size: int) -> Iterator[Row]:
    """The rows of ``queryset``, unconverted, fetched as ``QuerySet.iterator()`` fetches them."""
    compiler = queryset.query.get_compiler(queryset.db)
    chunked = not compiler.connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
    chunks = compiler.execute_sql(MULTI, chunked_fetch=chunked, chunk_size=chunk_size)
    try:
        for chunk in chunks:
            yield from chunk
    finally:
        # Close the cursor (a server-side one on PostgreSQL) now, not at garbage collection.
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
