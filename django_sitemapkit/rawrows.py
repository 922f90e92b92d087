"""Rows as the database cursor returns them, with only the conversions a sitemap needs.

A ``values()`` queryset turns each row into a dict and runs Django's
converters over every value in Python, most of which a sitemap then formats
straight back into text. Here the same compiled query is executed through the
same cursor machinery (a server-side cursor on PostgreSQL, like
``QuerySet.iterator()``), rows stay tuples, and each column the entries read
gets a reader that applies exactly the converters the ORM would, in the same
order. So a value read here is the value ``values()`` would have given.

One column is read differently where that provably changes nothing: on
SQLite, a ``lastmod`` ``DateTimeField`` stored by Django with ``USE_TZ`` holds
the UTC time as text, ``YYYY-MM-DD hh:mm:ss[.ffffff]`` (``str()`` of the naive
UTC value, see ``adapt_datetimefield_value``). The ORM parses that text into
a datetime (twice over: SQLite's converter, then the backend's) only for the
formatter to write it back to the second. The query selects it as text
instead (``CAST(... AS TEXT)``), and text of exactly that shape, with a date
and time every calendar has, is rewritten by slicing; any other text takes
the ORM's route (see :class:`UtcTextLastmod`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from operator import itemgetter
from typing import Any

from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet, TextField
from django.db.models.expressions import Col
from django.db.models.functions import Cast
from django.utils.dateparse import parse_datetime

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.values import format_lastmod

Row = Sequence[Any]

#: The name of the ``lastmod`` column selected as text (see the module docstring).
LASTMOD_TEXT = "_sitemapkit_lastmod_text"

# str() of a naive datetime whose fields every month has: year 0001-9999
# (datetime has no year 0), days 01-28 (29 to 31 depend on the month and take
# the ORM's route), hours to 23, no leap second. Microseconds are 6 digits or
# absent. ASCII digits only: "\d" would take other scripts' digits.
CANONICAL_UTC_TEXT = re.compile(
    r"(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    r" (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{6})?"
)


class RawColumns:
    """Where each field path sits in a raw row of a ``values()`` queryset, and how to read it."""

    def __init__(self, queryset: QuerySet[Any]) -> None:
        query = queryset.query
        # elide_empty=False: a queryset that matches nothing (.none()) still
        # compiles to its columns, instead of raising EmptyResultSet.
        compiler = query.get_compiler(queryset.db, elide_empty=False)
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
        if LASTMOD_TEXT in self.positions:
            return UtcTextLastmod(self.positions[LASTMOD_TEXT]).read
        read = self.reader(path)

        def formatted(row: Row) -> str | None:
            value = read(row)
            if type(value) is dt.datetime and value.tzinfo is dt.timezone.utc:
                # What PostgreSQL gives with USE_TZ: format_lastmod()'s first case.
                return value.isoformat(timespec="seconds")
            return None if value is None else format_lastmod(value)

        return formatted

    def stores_utc_text(self, path: str) -> bool:
        """Whether ``path`` is a column of SQLite text whose only conversion is
        "parse it and make it aware in UTC": the case :class:`UtcTextLastmod` reads."""
        if self.connection.vendor != "sqlite" or path not in self.converters:
            return False
        converters, expression = self.converters[path]
        return (
            settings.USE_TZ
            and self.connection.timezone_name == "UTC"
            and isinstance(expression, Col)
            and expression.output_field.get_internal_type() == "DateTimeField"
            and converters == [self.connection.ops.convert_datetimefield_value]
        )


class UtcTextLastmod:
    """A ``lastmod`` from the SQLite text of a UTC ``DateTimeField``, formatted as
    ``values()`` and ``format_lastmod()`` together would format it.

    Text that matches :data:`CANONICAL_UTC_TEXT` is what ``fromisoformat()``
    (which ``parse_datetime()`` tries first) reads into a naive datetime with
    those very fields; the ORM makes it aware in UTC and ``format_lastmod()``
    writes it to the second with ``+00:00``: the same characters, sliced.
    """

    def __init__(self, position: int) -> None:
        self.position = position

    def read(self, row: Row, match: Any = CANONICAL_UTC_TEXT.fullmatch) -> str | None:
        text: str | None = row[self.position]
        if text is not None and match(text) is not None:
            return text[:10] + "T" + text[11:19] + "+00:00"
        return self.general(text)

    @staticmethod
    def general(text: str | None) -> str | None:
        """The ORM's route: ``parse_datetime()``, naive read as UTC, then ``format_lastmod()``."""
        if text is None:
            return None
        try:
            value = parse_datetime(text)
        except ValueError as exc:
            # The ORM would raise in the middle of the page; one entry is enough.
            raise InvalidEntry(f"lastmod {text!r} is not a valid datetime") from exc
        if value is None:
            # SQLite's converter gives None for text that is no datetime at all.
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return format_lastmod(value)


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
    if not RawColumns(plain).stores_utc_text(lastmod):
        return plain
    return queryset.values(*columns, **{LASTMOD_TEXT: Cast(lastmod, output_field=TextField())})


def raw_rows(queryset: QuerySet[Any], chunk_size: int) -> Iterator[Row]:
    """The rows of ``queryset``, unconverted, fetched as ``QuerySet.iterator()`` fetches
    them: a server-side cursor on PostgreSQL unless ``DISABLE_SERVER_SIDE_CURSORS``."""
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
            yield from rows
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
