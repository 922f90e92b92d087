"""A ``lastmod`` the database gave: a row's, or an aggregate's ``MAX()``, read into a
date or refused, never raised past the value.

The database's values are data from outside the process (SECURITY.md). SQLite
keeps any value in any column: raw SQL can leave a text, a number or a blob in
a ``DateTimeField``, and Django's converters then raise (``make_aware(None)``,
``fromisoformat(b"...")``, ``2024-02-30``). On PostgreSQL, psycopg cannot load
a ``timestamptz`` of ``infinity`` or past year 9999, and fails the fetch; a
``lastmod`` expression may give text. A value is a lastmod when
``format_lastmod()`` can write it; any other refuses the row that holds it
(``read()``), and an aggregate whose ``MAX()`` it is falls back to the newest
valid one (``newest_valid()``), which a text, sorting above every datetime in
SQLite, would otherwise hide.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from threading import Lock
from typing import Any, NamedTuple, TypeVar

from django.core.exceptions import EmptyResultSet
from django.db import DataError, connections
from django.db.models import Case, F, Field, Func, Max, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sources.skips import reason_kind
from django_sitemapkit.values import format_lastmod, newest_lastmod

logger = logging.getLogger("django_sitemapkit")

Converter = Callable[[Any, Any, Any], Any]
T = TypeVar("T")
#: How many of the newest values a section's fallback reads at most: past them,
#: the section is written without a newest lastmod.
FALLBACK_ROWS = 100
#: The values psycopg can load: one day inside Python's range, for a session zone.
#: What the fallback's query calls the lastmod it reads.
CHECKED = "_sitemapkit_checked"
#: What a refused newest lastmod costs, as its warning says.
DATED, UNDATED = "its page and the index are dated by", "its page and the index have no lastmod"
LOADED = f"{DATED} the newest it can load"
#: The prefix of the aliases the package selects a lastmod expression as.
ALIASES = "_sitemapkit_"
#: How many sections, columns and reasons are remembered as logged.
WARNED_KINDS = 1024
LOADABLE = (
    dt.datetime(1, 1, 2, tzinfo=dt.timezone.utc),
    dt.datetime(9999, 12, 30, tzinfo=dt.timezone.utc),
)


class Unreadable(NamedTuple):
    """A value the database gave for a lastmod that is none, and why."""

    value: Any
    reason: str


def converters_of(expression: Any, connection: Any) -> list[Converter]:
    """The converters the ORM applies to ``expression``'s values, in its order."""
    return [
        *connection.ops.get_db_converters(expression),
        *expression.get_db_converters(connection),
    ]


def read(value: Any, converters: list[Converter], expression: Any, connection: Any) -> Any:
    """``value`` converted as the ORM converts it, or ``InvalidEntry`` if it is no lastmod:
    a converter that raises, a value it reads as ``None`` (SQLite's text that is no
    datetime), or a result ``format_lastmod()`` refuses."""
    if value is None:
        return None
    found = converted(value, converters, expression, connection)
    format_lastmod(found)
    return found


def formatted(value: Any, converters: list[Converter], expression: Any, connection: Any) -> str:
    """``format_lastmod()`` of ``read()``'s value (not ``None``), formatted once."""
    return format_lastmod(converted(value, converters, expression, connection))


def converted(value: Any, converters: list[Converter], expression: Any, connection: Any) -> Any:
    """``value`` through ``converters``, or ``InvalidEntry``: no value left is a date."""
    found = value
    try:
        for convert in converters:
            found = convert(found, expression, connection)
    except (ValueError, OverflowError) as exc:  # 2024-02-30, or past year 9999
        raise InvalidEntry(f"lastmod {value!r} is not a valid datetime") from exc
    except (TypeError, AttributeError):  # a blob, or a text that is no datetime at all
        found = None
    if found is None:
        raise InvalidEntry(f"lastmod {value!r} is not a date or datetime")
    return found


def checked(value: Any, converters: list[Converter], expression: Any, connection: Any) -> Any:
    """``read()``, with a refused value as an ``Unreadable``."""
    try:
        return read(value, converters, expression, connection)
    except InvalidEntry as exc:
        return Unreadable(value, str(exc))


def guarded_converters(source: Any, connection: Any) -> list[Converter]:
    """The one converter of a guarded ``MAX()``: the source's own, through ``checked()``."""
    converters = converters_of(source, connection)

    def convert(value: Any, expression: Any, connection: Any) -> Any:
        return checked(value, converters, source, connection)

    return [convert]


class NewestLastmod(Max):
    """``Max(path)`` whose value is read by ``checked()``: a date, ``None``, or an
    ``Unreadable``. Its output field is one no backend converts, so that the
    column's own converters run only inside ``checked()``."""

    def __init__(self, expression: Any, **extra: Any) -> None:
        super().__init__(expression, output_field=Field(), **extra)

    def get_db_converters(self, connection: Any) -> list[Converter]:
        return guarded_converters(self.get_source_expressions()[0], connection)


class NewestLastmodOf(Func):
    """``NewestLastmod`` as a plain function, for a scalar subquery that must not be
    grouped (``summary.py``)."""

    function = "MAX"

    def __init__(self, expression: Any) -> None:
        super().__init__(expression, output_field=Field())

    def get_db_converters(self, connection: Any) -> list[Converter]:
        return guarded_converters(self.get_source_expressions()[0], connection)


def is_unloadable(exc: BaseException) -> bool:
    """Whether ``exc`` is psycopg refusing to load a value Python cannot hold (a date of
    ``infinity``, past year 9999): an error of the client, which leaves the
    transaction as it was, unlike one the server reports (it has an SQLSTATE)."""
    cause = exc.__cause__
    return (
        isinstance(exc, DataError)
        and cause is not None
        and type(cause).__module__.startswith("psycopg")
        and getattr(cause, "sqlstate", None) is None
    )


def loaded(run: Callable[[Any], T], section: str, path: str) -> T:
    """``run(F(path))``; where psycopg cannot load the value found, ``run()`` of the
    values of ``path`` it can load, the others read as NULL (a slower query, only then),
    logged once as ``newest_valid()`` logs."""
    try:
        return run(F(path))
    except DataError as exc:
        if not is_unloadable(exc):
            raise
        reason = f"the database driver cannot load it ({exc})"
    warn_once(section, path, Unreadable(None, reason), None, LOADED)
    return run(Case(When(Q(**{f"{path}__range": LOADABLE}), then=F(path))))


def aggregate(
    queryset: QuerySet[Any], section: str, path: str | None, **aggregates: Any
) -> dict[str, Any]:
    """``queryset.aggregate(**aggregates)``, with ``"lastmod"``, the newest lastmod of
    ``path`` that is a date (``None`` without a ``path``)."""
    if path is None:
        return {**queryset.aggregate(**aggregates), "lastmod": None}

    def run(lastmod: Any) -> dict[str, Any]:
        return queryset.aggregate(**aggregates, lastmod=NewestLastmod(lastmod))

    found = loaded(run, section, path)
    return {**found, "lastmod": resolved(found["lastmod"], queryset, section, path)}


def resolved(found: Any, rows: QuerySet[Any], section: str, path: str) -> Any:
    """An aggregate's newest lastmod of ``rows``: ``found``, or where it is
    ``Unreadable``, the newest valid one (``newest_valid()``)."""
    if not isinstance(found, Unreadable):
        return found
    return newest_valid(rows, section, path, found)


def newest_valid(rows: QuerySet[Any], section: str, path: str, found: Unreadable) -> Any:
    """The newest lastmod of ``rows`` that is a date, where their ``MAX()`` is ``found``:
    a page's values read in its order (its rows, no more than the page reads), a
    section's newest first, ``FALLBACK_ROWS`` at most; logged once per section,
    column and reason, naming the first row found whose value is none."""
    try:
        values = loaded(lambda lastmod: checked_values(rows, lastmod), section, path)
    except DataError as exc:
        if not is_unloadable(exc):
            raise
        values = []
    valid = [
        value for _, value in values if value is not None and not isinstance(value, Unreadable)
    ]
    refused = [(key, value) for key, value in values if isinstance(value, Unreadable)]
    key, bad = refused[0] if refused else (None, found)
    newest = newest_lastmod(valid)
    if newest is not None:
        instead = f"{DATED} the newest valid one, {format_lastmod(newest)}"
    elif not rows.query.is_sliced and len(values) >= FALLBACK_ROWS:
        instead = f"{UNDATED}, none of the newest {FALLBACK_ROWS} being valid"
    else:
        instead = f"{UNDATED}, no other being valid"
    warn_once(section, path, bad, key, instead)
    return newest


def unparsed(lastmod: Any) -> Coalesce:
    """``lastmod`` as an expression that gives the same values: sqlite3 parses a bare
    column declared date or datetime itself, and raises in the fetch on one it cannot
    (Django's ``register_converter()``), before any reader sees the row."""
    return Coalesce(lastmod, Value(None))


def checked_values(rows: QuerySet[Any], lastmod: Any) -> list[tuple[Any, Any]]:
    """Each row's primary key, unconverted (for the log), and ``lastmod`` read by
    ``checked()``: a page's rows in their order, else the newest first."""
    selected = rows.annotate(**{CHECKED: unparsed(lastmod)})
    if not rows.query.is_sliced:
        newest_first = F(CHECKED).desc(nulls_last=True)
        selected = selected.filter(**{f"{CHECKED}__isnull": False}).order_by(newest_first)
    selected = selected.values_list("pk", CHECKED)
    if not rows.query.is_sliced:
        selected = selected[:FALLBACK_ROWS]
    connection = connections[rows.db]
    expression = selected.query.annotations[CHECKED]
    converters = converters_of(expression, connection)
    try:
        sql, params = selected.query.get_compiler(rows.db).as_sql()
    except EmptyResultSet:
        return []
    positions = list(selected.query.selected or {})
    key_at, value_at = positions.index("pk"), positions.index(CHECKED)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    return [
        (row[key_at], checked(row[value_at], converters, expression, connection)) for row in fetched
    ]


_warned: set[tuple[str, str, str]] = set()
_warned_lock = Lock()


def warn_once(section: str, path: str, bad: Unreadable, key: Any, instead: str) -> None:
    """Log a newest lastmod that is no date, once per process for its section, column
    and reason: a page and the index read it on every request."""
    kind = (section, path, reason_kind(bad.reason))
    with _warned_lock:
        if kind in _warned:
            return
        if len(_warned) >= WARNED_KINDS:
            _warned.clear()
        _warned.add(kind)
    where = "its lastmod expression" if path.startswith(ALIASES) else f"column {path!r}"
    row = "" if key is None else f", pk={key!r}"
    logger.warning(
        "The newest lastmod of source %r (%s%s) is refused: %s; %s. Store a date or datetime "
        "in that row, or NULL.",
        section,
        where,
        row,
        bad.reason,
        instead,
    )


def clear_warnings() -> None:
    """Forget which newest lastmods were logged (for the tests)."""
    with _warned_lock:
        _warned.clear()
