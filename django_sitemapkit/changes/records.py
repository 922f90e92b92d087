"""The change record (``models.Change``): written in the saving transaction
(``coalescing.py``), read and applied by a refresh, counted for the version of the
database-served index.

What a record holds crossed a process boundary: it is read back within bounds
(``reading.py``), and a record that does not fit is applied as a change to
every row of its model, whose sections the refresh then renders whole
(logged).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db import connections, router, transaction
from django.db.models import F, Sum
from django.utils import timezone

from django_sitemapkit.changes.coalescing import write
from django_sitemapkit.changes.reading import ANY_MODEL, UNKNOWN, Changed, read
from django_sitemapkit.models import Change, Refresh

#: The one row of ``models.Refresh``.
PROJECT = "project"
#: How long an applied record is kept: the index served from the database reads
#: the records committed since it last read its pages, applied or not; after
#: that, it reads a section whole once.
KEEP_APPLIED = dt.timedelta(hours=1)
#: What a record holds, in the order ``reading.read()`` takes it.
READ = ("id", "model", "row", "before", "saves", "first")


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
    for record in query.values_list(*READ)[:limit]:
        found.ids.append(record[0])
        found.changes.append(read(*record))
    return found


def applied(ids: list[int], using: str | None = None) -> None:
    """Mark the records a refresh applied, counting the changes they stand for in
    ``Refresh.applied`` (``version()``), and delete those applied more than
    ``KEEP_APPLIED`` ago, in one transaction. A record a save replaced meanwhile
    (``coalescing.py``) is gone, and its changes are in the one that replaced it."""
    alias = using or database()
    now = timezone.now()
    with transaction.atomic(using=alias):
        table = Change.objects.using(alias)
        unmarked = table.filter(id__in=ids, applied__isnull=True)
        if connections[alias].features.has_select_for_update_skip_locked:
            # A record a saving transaction is taking is left to it: the record it
            # writes stands for this one's changes too, and stays pending. Waiting
            # would hold the refresh for as long as the save's transaction lasts.
            held = unmarked.select_for_update(skip_locked=True).values_list("id", flat=True)
            unmarked = table.filter(id__in=list(held))
        unmarked.update(applied=now)
        # Those this transaction marked (it holds them now): ``now`` is its own.
        marked = table.filter(id__in=ids, applied=now).aggregate(saves=Sum("saves"))["saves"] or 0
        Refresh.objects.using(alias).get_or_create(name=PROJECT)
        Refresh.objects.using(alias).filter(name=PROJECT).update(applied=F("applied") + marked)
        Change.objects.using(alias).filter(applied__lt=now - KEEP_APPLIED).delete()


def version(using: str | None = None) -> int:
    """How many recorded changes were ever committed: pending, and applied (marked, or
    since deleted). Each committed change adds one (a record, or one more of the
    changes a record stands for) and nothing takes one away, so a number never comes
    back: the validator of the rows as they were when it was read. One
    statement, so that a refresh applying records between two reads cannot count
    them twice."""
    connection = connections[using or database()]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counted(connection)}", [PROJECT])
        (total,) = cursor.fetchone()
    return int(total)


def counted(connection: Any) -> str:
    """The version's expression: the changes of the records pending, plus those applied."""
    name = connection.ops.quote_name
    return (
        f"(SELECT COALESCE(SUM({name('saves')}), 0) FROM {name(Change._meta.db_table)} "
        f"WHERE {name('applied')} IS NULL)"
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
    those the version counts when they account for ``version - an earlier version``
    (a record committed out of id order, or applied and deleted in between, is
    missing, and the count says so: ``index.py``)."""
    connection = connections[using or database()]
    name = connection.ops.quote_name
    table = name(Change._meta.db_table)
    columns = ", ".join(f"c.{name(column)}" for column in READ)
    sql = (
        f"SELECT t.{name('total')}, t.{name('newest')}, {columns} FROM (SELECT "
        f"{counted(connection)} AS {name('total')}, (SELECT MAX({name('id')}) FROM {table}) "
        f"AS {name('newest')}) t LEFT JOIN (SELECT {', '.join(name(c) for c in READ)} "
        f"FROM {table} WHERE {name('id')} > %s ORDER BY {name('id')} LIMIT %s) "
        f"c ON 1 = 1 ORDER BY c.{name('id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [PROJECT, after, limit])
        rows = cursor.fetchall()
    changes = [read(*row[2:]) for row in rows if row[2] is not None]
    total, newest = rows[0][0], rows[0][1]
    return Since(int(total), None if newest is None else int(newest), changes)


def accounted(since: list[Changed], seen: int) -> int:
    """The changes the records after id ``seen`` stand for, if none is missing: all of
    a record's (``saves``) when it replaced none seen before, else one, its own. A
    record that replaced one seen before added at least its own, so the sum is the
    version's step only if each added exactly that, and nothing else was committed
    below ``seen`` (``coalescing.py``)."""
    return sum(
        1 if change.first is not None and change.first <= seen else change.saves for change in since
    )


__all__ = [
    "ANY_MODEL",
    "UNKNOWN",
    "Changed",
    "Pending",
    "applied",
    "pending",
    "since",
    "version",
    "write",
]
