"""The change record (``models.Change``): written in the saving transaction, read and
applied by a refresh, counted for the version of the database-served index.

What a record holds crossed a process boundary (another process wrote it,
perhaps another release): each value is read back bounded and checked against
the model's own field, and a record that does not fit is applied as a change
to every row of its model, whose sections the refresh then renders whole
(logged).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import connections, models, router, transaction
from django.db.models import F
from django.utils import timezone

from django_sitemapkit.models import Change, Refresh
from django_sitemapkit.sources.json_values import TAGGED, encode

logger = logging.getLogger("django_sitemapkit")
#: The one row of ``models.Refresh``.
PROJECT = "project"
#: A record's ``before`` when where the row was is not known (an instance saved
#: without being loaded, with a key of more than its primary key).
UNKNOWN = "?"
#: How long an applied record is kept: the index served from the database reads
#: the records committed since it last read its pages, applied or not; after
#: that, it reads a section whole once.
KEEP_APPLIED = dt.timedelta(hours=1)
#: The longest value of a record read back (a key is a few columns).
MOST_TEXT = 10_000


def write(using: str, rows: Iterable[tuple[str, Any, dict[str, Any] | str | None]]) -> int:
    """Record ``(model label, primary key or None, before)`` changes in ``using``'s
    transaction: one ``INSERT``."""
    records = [
        Change(model=model, row=None if pk is None else dumps(pk), before=before_text(before))
        for model, pk, before in rows
    ]
    if records:
        Change.objects.using(using).bulk_create(records)
    return len(records)


def dumps(value: Any) -> str:
    return json.dumps(encode(value), separators=(",", ":"))


def before_text(before: dict[str, Any] | str | None) -> str | None:
    if before is None or before == UNKNOWN:
        return before
    assert isinstance(before, dict)
    return json.dumps({k: encode(v) for k, v in before.items()}, sort_keys=True)


@dataclass(frozen=True)
class Changed:
    """One record, read back."""

    id: int
    model: str
    #: The row's primary key; ``None``: every row of the model.
    row: Any
    #: The values of its key's columns before the change, by attribute name; ``None``:
    #: it did not move (or was inserted).
    before: dict[str, Any] | None = None
    #: ``False``: where it was is not known.
    placed: bool = True


@dataclass
class Pending:
    """The records a refresh applies: each read back, and the ids to delete after."""

    changes: list[Changed] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)

    def models(self) -> set[str]:
        return {change.model for change in self.changes}


def database() -> str:
    return router.db_for_write(Change)


def pending(limit: int, using: str | None = None) -> Pending:
    """The oldest ``limit`` records, each read back (``Changed``)."""
    found = Pending()
    query = Change.objects.using(using or database()).filter(applied__isnull=True).order_by("id")
    for record in query.values_list("id", "model", "row", "before")[:limit]:
        found.ids.append(record[0])
        found.changes.append(read(*record))
    return found


def read(id_: int, label: str, row: str | None, before: str | None) -> Changed:
    """A record as the refresh applies it; one that does not fit its model is a change
    to every row of it (logged), and one of a model no longer installed is none."""
    try:
        model = apps.get_model(label)
    except (LookupError, ValueError):
        logger.warning(
            "Change record %s names %r, which is no installed model: left out.", id_, label
        )
        return Changed(id_, label[:200], None, placed=False)
    try:
        pk = None if row is None else column_value(model, model._meta.pk, row)
        if before is None:
            return Changed(id_, label, pk)
        if before == UNKNOWN:
            return Changed(id_, label, pk, placed=False)
        return Changed(id_, label, pk, before_values(model, before))
    except (ValueError, TypeError, ValidationError) as exc:
        logger.warning(
            "Change record %s of %r cannot be read (%s): the sections that read the model "
            "are rendered again whole.",
            id_,
            label,
            exc,
        )
        return Changed(id_, label, None, placed=False)


def loads(text: str) -> Any:
    if not isinstance(text, str) or len(text) > MOST_TEXT:
        raise ValueError(f"a value of {len(text):,} characters")
    value = json.loads(text)
    if isinstance(value, dict) and len(value) == 1:
        ((tag, written),) = value.items()
        if tag in TAGGED and isinstance(written, str):
            return TAGGED[tag](written)
    return value


def column_value(model: type[models.Model], column: Any, text: str) -> Any:
    """``text`` as a value of ``column``, of the very type the column gives."""
    value = loads(text)
    try:
        read = column.to_python(value)
    except ValidationError:
        read = None
    if type(read) is not type(value) or read != value:
        raise ValueError(f"{value!r} is no value of {model._meta.label}.{column.name}")
    return read


def before_values(model: type[models.Model], text: str) -> dict[str, Any]:
    value = json.loads(text) if len(text) <= MOST_TEXT else None
    if not isinstance(value, dict) or len(value) > 16:
        raise ValueError("not an object of column values")
    columns = {f.attname: f for f in model._meta.concrete_fields}
    found = {}
    for name, written in value.items():
        if name not in columns:
            raise ValueError(f"{name!r} is no column of {model._meta.label}")
        found[name] = column_value(model, columns[name], json.dumps(written))
    return found


def applied(ids: list[int], using: str | None = None) -> None:
    """Mark the records a refresh applied, counting them in ``Refresh.applied``
    (``version()``), and delete those applied more than ``KEEP_APPLIED`` ago, in one
    transaction."""
    alias = using or database()
    now = timezone.now()
    with transaction.atomic(using=alias):
        marked = (
            Change.objects.using(alias).filter(id__in=ids, applied__isnull=True).update(applied=now)
        )
        Refresh.objects.using(alias).get_or_create(name=PROJECT)
        Refresh.objects.using(alias).filter(name=PROJECT).update(applied=F("applied") + marked)
        Change.objects.using(alias).filter(applied__lt=now - KEEP_APPLIED).delete()


def version(using: str | None = None) -> int:
    """How many records were ever committed: pending, and applied (marked, or since
    deleted). Each committed record adds one and nothing takes one away, so a number
    never comes back: the validator of the rows as they were when it was read. One
    statement, so that a refresh applying records between two reads cannot count
    them twice."""
    connection = connections[using or database()]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counted(connection)}", [PROJECT])
        (total,) = cursor.fetchone()
    return int(total)


def counted(connection: Any) -> str:
    """The version's expression: the records pending, plus those applied."""
    name = connection.ops.quote_name
    return (
        f"(SELECT COUNT(*) FROM {name(Change._meta.db_table)} WHERE {name('applied')} IS NULL)"
        " + COALESCE((SELECT "
        f"{name('applied')} FROM {name(Refresh._meta.db_table)} WHERE {name('name')} = %s), 0)"
    )


@dataclass(frozen=True)
class Since:
    """The version, the newest record's id, and the records after ``after``
    (at most ``limit``), as one statement saw them all."""

    version: int
    newest: int | None
    changes: list[Changed]


def since(after: int, limit: int, using: str | None = None) -> Since:
    """The records with an id above ``after``, with the version and the newest id they
    were read at: one statement, one snapshot, so that the records read are exactly
    those the version counts when ``version - an earlier version`` of them are found
    (a record committed out of id order, or applied and deleted in between, is
    missing, and the count says so)."""
    connection = connections[using or database()]
    name = connection.ops.quote_name
    table = name(Change._meta.db_table)
    columns = ", ".join(f"c.{name(column)}" for column in ("id", "model", "row", "before"))
    sql = (
        f"SELECT t.{name('total')}, t.{name('newest')}, {columns} FROM (SELECT "
        f"{counted(connection)} AS {name('total')}, (SELECT MAX({name('id')}) FROM {table}) "
        f"AS {name('newest')}) t LEFT JOIN (SELECT {name('id')}, {name('model')}, {name('row')}, "
        f"{name('before')} FROM {table} WHERE {name('id')} > %s ORDER BY {name('id')} LIMIT %s) "
        f"c ON 1 = 1 ORDER BY c.{name('id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [PROJECT, after, limit])
        rows = cursor.fetchall()
    changes = [read(*row[2:]) for row in rows if row[2] is not None]
    total, newest = rows[0][0], rows[0][1]
    return Since(int(total), None if newest is None else int(newest), changes)
