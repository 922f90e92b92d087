"""The change record written (``models.Change``): one pending record per row, and past
a bound one of every row, so that the table, and the version's statement, stay
bounded however long no refresh runs (docs/changes.md, "What is recorded").

A save of a row that has a pending record takes it (deletes it) and writes it
again, with a new id: the index served from the database reads the records
after the id it last saw, and must see the row again. The new record keeps the
places the row was at before each change it stands for (a row moved twice
between refreshes: both old places are rendered again; past ``MOST_PLACES``,
where it was is taken as unknown and the section compared), and counts the
commits it stands for (``saves``, which the version adds up), so the version
still moves on every committed change and never comes back.

Past ``MOST_PENDING`` pending records of a model, a save of a row without one
writes the model's record of every row instead, and every later save of the
model is coalesced into it: its sections are rendered whole by the next
refresh, which a thousand changed rows come close to anyway.

The take is one statement that waits for no lock, in the saving transaction:
on PostgreSQL ``FOR UPDATE SKIP LOCKED`` (a record another open transaction is
taking is left to it, and this change written beside it), on SQLite (one
writer) a ``DELETE ... RETURNING``; on MySQL and MariaDB the records are read
without a lock, then those not locked are taken by primary key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connections, transaction
from django.utils import timezone

from django_sitemapkit.changes.reading import UNKNOWN, places
from django_sitemapkit.models import Change
from django_sitemapkit.sources.json_values import encode

#: Pending records of one model past which its saves are one record of every row.
MOST_PENDING = 1_000
#: The most places a record keeps of where its row was; past it, ``UNKNOWN``.
MOST_PLACES = 8
#: The characters of a row's key the index of pending records holds (``row`` is text,
#: which MySQL does not index whole).
PREFIX = 64
#: The ``row_prefix`` of a record of every row: no key is written as empty JSON.
EVERY_ROW = ""
#: ``(model label, primary key or None: every row, before)``.
Row = tuple[str, Any, dict[str, Any] | str | None]
COLUMNS = ("id", "row", "before", "saves", "first")
#: A record to write, its columns in the order of ``INSERTED`` but ``at``.
Written = tuple[str, str | None, str, str | None, int, int | None]
INSERTED = ("model", "row", "row_prefix", "before", "saves", "first", "at")


@dataclass(frozen=True)
class Taken:
    """A pending record taken to be written again with a change of its row."""

    id: int
    row: str | None
    before: str | None
    saves: int
    first: int | None

    @property
    def start(self) -> int:
        return self.first if self.first is not None else self.id


def write(using: str, rows: Iterable[Row]) -> int:
    """Record ``rows`` in ``using``'s transaction, each coalesced with its row's pending
    record; return how many changes were recorded."""
    wanted: dict[str, dict[str | None, list[str | None]]] = {}
    count = 0
    for model, pk, before in rows:
        row = None if pk is None else dumps(pk)
        wanted.setdefault(model, {}).setdefault(row, []).append(before_text(before))
        count += 1
    if not wanted:
        return 0
    with transaction.atomic(using=using, savepoint=False):
        written = [
            record for model, by_row in wanted.items() for record in coalesced(using, model, by_row)
        ]
        insert(using, written)
    return count


def insert(using: str, written: list[Written]) -> None:
    """One ``INSERT`` of ``written``: in raw SQL, as the take, since the ORM's
    ``bulk_create()`` costs a save more than the statement does."""
    connection = connections[using]
    name = connection.ops.quote_name
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    marks = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(written))
    params = [value for record in written for value in (*record, now)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {name(Change._meta.db_table)} ({', '.join(map(name, INSERTED))}) "
            f"VALUES {marks}",
            params,
        )


def dumps(value: Any) -> str:
    return json.dumps(encode(value), separators=(",", ":"))


def before_text(before: dict[str, Any] | str | None) -> str | None:
    if before is None or before == UNKNOWN:
        return before
    assert isinstance(before, dict)
    return json.dumps({k: encode(v) for k, v in before.items()}, sort_keys=True)


def coalesced(using: str, model: str, by_row: dict[str | None, list[str | None]]) -> list[Written]:
    """The records of ``model``'s changes, each with what its row's pending records held."""
    if None in by_row or len(by_row) > MOST_PENDING:
        by_row = {None: []}
    taken = take(using, model, list(by_row))
    mine: dict[str | None, list[Taken]] = {}
    for record in taken:
        mine.setdefault(record.row, []).append(record)
    added = sum(1 for row in by_row if row not in mine)
    every = None in mine or None in by_row or (added and crowded(using, model, added))
    if every:
        return [record_of(model, None, taken, None)]
    written: list[Written] = []
    for row, befores in by_row.items():
        found = mine.get(row, [])
        try:
            before = merged([*(record.before for record in found), *befores])
        except Exception:
            # A record taken that a refresh would set aside: read as every row's, as
            # it would have been.
            return [record_of(model, None, taken, None)]
        written.append(record_of(model, row, found, before))
    return written


def record_of(model: str, row: str | None, taken: list[Taken], before: str | None) -> Written:
    return (
        model,
        row,
        EVERY_ROW if row is None else row[:PREFIX],
        before,
        sum(record.saves for record in taken) + 1,
        min((record.start for record in taken), default=None),
    )


def merged(befores: list[str | None]) -> str | None:
    """The places of ``befores`` as one record's ``before``; raise if one cannot be read
    (``reading.places()``)."""
    if UNKNOWN in befores:
        return UNKNOWN
    found: dict[str, dict[str, Any]] = {}
    for text in befores:
        if text is None:
            continue
        for place in places(text):
            found.setdefault(json.dumps(place, sort_keys=True), place)
    if not found:
        return None
    if len(found) > MOST_PLACES:
        return UNKNOWN
    if len(found) == 1:
        return next(iter(found))
    return json.dumps(list(found.values()), sort_keys=True)


def crowded(using: str, model: str, added: int) -> bool:
    """Whether ``added`` more records of ``model`` would pass ``MOST_PENDING``: at most
    that many index entries counted."""
    connection = connections[using]
    name = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM {name(Change._meta.db_table)} WHERE "
            f"{name('model')} = %s AND {name('applied')} IS NULL LIMIT {MOST_PENDING}) p",
            [model],
        )
        (pending,) = cursor.fetchone()
    return bool(pending + added > MOST_PENDING)


def take(using: str, model: str, rows: list[str | None]) -> list[Taken]:
    """Delete the pending records of ``rows`` of ``model``, and of every row of it, that
    no other open transaction holds; return them."""
    connection = connections[using]
    name = connection.ops.quote_name
    table = name(Change._meta.db_table)
    own = [row for row in rows if row is not None]
    # One search of the index for each prefix (an OR of two conditions would be a scan
    # of the model's pending records), then the rows themselves compared.
    prefixes = sorted({EVERY_ROW, *(row[:PREFIX] for row in own)})
    rowed = f" OR {name('row')} IN ({', '.join(['%s'] * len(own))})" if own else ""
    where = (
        f"{name('model')} = %s AND {name('applied')} IS NULL AND {name('row_prefix')} IN "
        f"({', '.join(['%s'] * len(prefixes))}) AND ({name('row')} IS NULL{rowed})"
    )
    params: list[Any] = [model, *prefixes, *own]
    columns = ", ".join(name(column) for column in COLUMNS)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"DELETE FROM {table} WHERE {name('id')} IN (SELECT {name('id')} FROM {table} "
                f"WHERE {where} FOR UPDATE SKIP LOCKED) RETURNING {columns}",
                params,
            )
            found = cursor.fetchall()
        elif connection.vendor == "sqlite":
            cursor.execute(f"DELETE FROM {table} WHERE {where} RETURNING {columns}", params)
            found = cursor.fetchall()
        else:
            found = locked(
                cursor, name, table, f"SELECT {columns} FROM {table} WHERE {where}", params
            )
    return [taken_of(*record) for record in found]


def taken_of(id_: int, row: Any, before: Any, saves: Any, first: Any) -> Taken:
    """A record taken, its counts as the version counted them (a value no refresh wrote
    counts one); a ``before`` that is no text is read as no place (``merged()``)."""
    return Taken(
        id_,
        row,
        before,
        saves if type(saves) is int and saves > 0 else 1,
        first if type(first) is int else None,
    )


def locked(cursor: Any, name: Any, table: str, sql: str, params: list[Any]) -> list[Any]:
    """MySQL's and MariaDB's take: the records read without a lock (a locking read of
    a secondary index locks its gaps, and two saves would wait on each other's), then
    those no other transaction holds locked by primary key, and deleted."""
    cursor.execute(sql, params)
    found = {record[0]: record for record in cursor.fetchall()}
    if not found:
        return []
    marks = ", ".join(["%s"] * len(found))
    cursor.execute(
        f"SELECT {name('id')} FROM {table} WHERE {name('id')} IN ({marks}) AND "
        f"{name('applied')} IS NULL FOR UPDATE SKIP LOCKED",
        list(found),
    )
    held = [record[0] for record in cursor.fetchall()]
    if held:
        marks = ", ".join(["%s"] * len(held))
        cursor.execute(f"DELETE FROM {table} WHERE {name('id')} IN ({marks})", held)
    return [found[id_] for id_ in held]
