"""Rows as the database cursor returns them, with only the conversions a sitemap needs.

A ``values()`` queryset turns each row into a dict and runs Django's
converters over every value in Python, most of which a sitemap then formats
straight back into text. Here the query is compiled once and executed through
the same cursor machinery (a server-side cursor on PostgreSQL, like
``QuerySet.iterator()``), rows stay tuples, and each column the entries read
gets a reader that applies exactly the converters the ORM would, in the same
order. So a value read here is the value ``values()`` would have given.

One column is read differently where that provably changes nothing: a
``lastmod`` ``DateTimeField`` on SQLite or PostgreSQL with ``USE_TZ`` is
selected as the database's text of its UTC time, and sliced
(``text_lastmods.py``). On SQLite, any other date, time or datetime column is
selected as an expression (``stored_lastmods.unparsed()``); the ORM's
converters, which the reader applies, then refuse a value that is no date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from itertools import islice
from operator import itemgetter
from typing import Any

from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import F, QuerySet, TextField
from django.db.models.expressions import Col
from django.db.models.functions import Cast

from django_sitemapkit.sources.stored_lastmods import formatted as formatted_lastmod
from django_sitemapkit.sources.stored_lastmods import unparsed
from django_sitemapkit.sources.text_lastmods import UTC_TEXTS, UtcTextLastmod

Row = Sequence[Any]
Chunk = list[Any]

#: The name of the ``lastmod`` column selected as text (see the module docstring).
LASTMOD_TEXT = "_sitemapkit_lastmod_text"
#: The name of a SQLite ``lastmod`` column selected as an expression (the docstring).
LASTMOD_VALUE = "_sitemapkit_lastmod_value"
#: The declared types Django's SQLite backend has the driver convert as it fetches.
FETCH_CONVERTED = frozenset({"date", "datetime", "time", "timestamp"})


class RowShape:
    """Where each field path sits in a raw row of a ``values()`` queryset, and how to read it.

    Worked out from the query's own description of its select list, in the
    order the compiler writes it (``SQLCompiler.get_select()``), without
    compiling any SQL: the rows' query is compiled once, when it is run.
    """

    def __init__(self, queryset: QuerySet[Any]) -> None:
        query = queryset.query
        self.connection = connections[queryset.db]
        selected = [
            (name, selected_expression(query, item))
            for name, item in (query.selected or {}).items()
        ]
        self.positions = {name: position for position, (name, _) in enumerate(selected)}
        self.expressions = dict(selected)
        self.converters: dict[str, tuple[list[Any], Any]] = {}
        for name, expression in selected:
            found = [
                *self.connection.ops.get_db_converters(expression),
                *expression.get_db_converters(self.connection),
            ]
            if found:
                self.converters[name] = (found, expression)

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
        if LASTMOD_TEXT in self.positions:
            return UtcTextLastmod(self.positions[LASTMOD_TEXT], self.connection.vendor).read
        if LASTMOD_VALUE in self.positions:
            path = LASTMOD_VALUE
        position, connection = self.positions[path], self.connection
        converters, expression = self.converters.get(path, ([], None))

        def formatted(row: Row) -> str | None:
            value = row[position]
            if type(value) is dt.datetime and value.tzinfo is dt.timezone.utc:
                # What PostgreSQL gives with USE_TZ: format_lastmod()'s first case.
                return value.isoformat(timespec="seconds")
            if value is None:
                return None
            # A value the converters refuse refuses its entry (stored_lastmods.py).
            return formatted_lastmod(value, converters, expression, connection)

        return formatted

    def stores_utc_text(self, path: str) -> bool:
        """Whether ``path`` is a ``DateTimeField`` column whose database text of its UTC
        time :class:`~django_sitemapkit.sources.text_lastmods.UtcTextLastmod` reads:
        on SQLite, MySQL and MariaDB, a column whose only conversion is "make it aware
        in UTC"; on PostgreSQL, a ``timestamptz`` with no conversion at all."""
        vendor = self.connection.vendor
        if vendor not in UTC_TEXTS or not settings.USE_TZ:
            return False
        expression = self.expressions[path]
        if (
            self.connection.timezone_name != "UTC"
            or not isinstance(expression, Col)
            or expression.output_field.get_internal_type() != "DateTimeField"
        ):
            return False
        converters = self.converters.get(path, ([], None))[0]
        if vendor == "postgresql":
            return not converters
        return converters == [getattr(self.connection.ops, "convert_datetimefield_value", None)]

    def fetch_converted(self, path: str) -> bool:
        """Whether SQLite's driver converts ``path``'s values as it fetches them."""
        expression = self.expressions[path]
        if self.connection.vendor != "sqlite" or not isinstance(expression, Col):
            return False
        declared = expression.output_field.db_type(self.connection) or ""
        return declared.lower() in FETCH_CONVERTED


def selected_expression(query: Any, item: Any) -> Any:
    """The expression of one entry of ``Query.selected``: an annotation's name, the
    position of a column in ``Query.select``, or an ``extra()`` expression."""
    if isinstance(item, str):
        return query.annotations[item]
    if isinstance(item, int):
        return query.select[item]
    return item


def raw_values(
    queryset: QuerySet[Any], columns: Sequence[str], lastmod: str | None
) -> QuerySet[Any]:
    """``queryset.values(*columns)``, with a SQLite UTC datetime ``lastmod`` selected as text.

    ``columns`` are the paths the entries read; ``lastmod`` is left out of
    them when only the ``lastmod`` reads it.
    """
    if lastmod is None or lastmod in columns:
        return queryset.values(*columns)
    plain = queryset.values(*columns, lastmod)
    shape = RowShape(plain)
    if shape.stores_utc_text(lastmod):
        return queryset.values(*columns, **{LASTMOD_TEXT: Cast(lastmod, output_field=TextField())})
    if shape.fetch_converted(lastmod):
        return queryset.values(*columns, **{LASTMOD_VALUE: unparsed(F(lastmod))})
    return plain


def raw_chunks(queryset: QuerySet[Any], chunk_size: int) -> Iterator[Chunk]:
    """The rows of ``queryset``, unconverted, ``chunk_size`` at a time, fetched as
    ``QuerySet.iterator()`` fetches them: a server-side cursor on PostgreSQL unless
    ``DISABLE_SERVER_SIDE_CURSORS``. The query is compiled here, once."""
    compiler = queryset.query.get_compiler(queryset.db)
    connection = compiler.connection
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return
    if not sql:
        return
    chunked = not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
    cursor = connection.chunked_cursor() if chunked else connection.cursor()
    try:
        load_timestamptz_natively(connection, cursor)
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(chunk_size):
            yield rows
    finally:
        # Closed now, not at garbage collection: a server-side cursor left
        # open could fail a later query on the same connection. Unless the
        # connection is closed already, and the cursor with it: under ASGI,
        # Django closes it when the client leaves while the view still runs,
        # and never closes the response the view then returns.
        if connection.connection is not None:
            cursor.close()
        else:
            # Marked closed where the driver can (psycopg warns about a server-side
            # cursor deleted while open); the error sqlite3 raises is of no use.
            with suppress(Exception):
                cursor.close()


def orm_chunks(queryset: QuerySet[Any], chunk_size: int) -> Iterator[Chunk]:
    """The rows of a ``values()`` or model queryset through the ORM, a chunk at a time."""
    rows = queryset.iterator(chunk_size=chunk_size)
    try:
        while chunk := list(islice(rows, chunk_size)):
            yield chunk
    finally:
        close_iterator(rows)


def load_timestamptz_natively(connection: BaseDatabaseWrapper, cursor: Any) -> None:
    """On PostgreSQL with psycopg 3 and ``USE_TZ``, read ``timestamptz`` with psycopg's
    own loader (compiled, in psycopg's binary build) instead of Django's.

    Django's loader is psycopg's Python one, followed by ``replace(tzinfo=
    connection.timezone)``; Django has set the session's ``TimeZone`` to that
    zone, and for ``"UTC"`` psycopg's own loader already answers with
    ``datetime.timezone.utc``: the same value, several times faster.
    """
    if (
        connection.vendor != "postgresql"
        or not settings.USE_TZ
        or connection.timezone_name != "UTC"
        or connection.timezone is not dt.timezone.utc
    ):
        return
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    if not is_psycopg3:
        return
    from psycopg import adapters, postgres, pq

    # Django set the session's zone when it connected; a later SET TIME ZONE
    # would make its loader relabel other zones' times as UTC, and not this one.
    if cursor.cursor.connection.info.parameter_status("TimeZone") != "UTC":
        return
    native = adapters.get_loader(postgres.types["timestamptz"].oid, pq.Format.TEXT)
    if native is not None:
        cursor.cursor.adapters.register_loader("timestamptz", native)


def close_iterator(rows: object) -> None:
    """Close an iterator of rows (and its cursor) now, if it can be closed at all.

    A queryset's ``.iterator()`` may hold a server-side cursor (PostgreSQL);
    left to the garbage collector, it would be closed at an arbitrary moment,
    possibly in the middle of another query on the same connection.
    """
    close = getattr(rows, "close", None)
    if close is not None:
        close()
