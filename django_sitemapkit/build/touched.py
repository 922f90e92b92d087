"""The shards a refresh renders: the pending change records (``changes/records.py``)
read as the keys of the rows they name, each key placed in its shard.

A section read by a key (``sources/keyset.py``) keeps its recorded cuts: a
changed row's key, now and before a move or a delete, falls in one shard, found
by bisecting the recorded lows. Only those shards are read again (their stats,
then their rows): a refresh after one change reads one shard, whatever the
section's size. The others keep their files without a query, nor a look at
the files (the periodic build does both).

Where a record cannot be placed, the section is compared as a build does
(``planning.plan_section()``), that section only: a record of every row of a
model (``changed(Model)``), or of a row whose place before is not known, or a
key the database orders otherwise than Python (text, but for SQLite's binary
collation: a wrong shard would leave the row stale until the periodic build).
"""

from __future__ import annotations

import functools
import itertools
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connections, models

from django_sitemapkit.build.manifest import Shard, encode_stats
from django_sitemapkit.build.planning import PlannedShard, cut, without_empty
from django_sitemapkit.changes.records import Pending
from django_sitemapkit.changes.watch import compile_watch, label
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.keyset import KeyColumn
from django_sitemapkit.sources.pages import QueryPager
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.ranges import Key, range_stats

#: Primary keys in one ``IN (...)`` (SQLite's least limit of parameters is 999).
ROWS_PER_QUERY = 500
#: Columns whose order in every database is Python's order of their values.
PYTHON_ORDER = {
    "AutoField",
    "BigAutoField",
    "SmallAutoField",
    "IntegerField",
    "BigIntegerField",
    "SmallIntegerField",
    "PositiveIntegerField",
    "PositiveBigIntegerField",
    "PositiveSmallIntegerField",
    "DateField",
    "DateTimeField",
    "TimeField",
    "DecimalField",
    "FloatField",
    "BooleanField",
    "UUIDField",
}
#: Text columns: in Python's order (code points) only under SQLite's default
#: ``BINARY`` collation, which compares their UTF-8 bytes (sqlite.org/datatype3.html
#: section 7.1); PostgreSQL's and MySQL's follow a locale.
TEXT = {"CharField", "SlugField", "TextField", "EmailField", "URLField"}


@dataclass
class ModelChanges:
    """The records of one model."""

    rows: set[Any] = field(default_factory=set)
    #: ``(primary key, its key columns before)`` of each row that moved or was deleted.
    befores: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    #: A record of every row, or of one whose place before is not known.
    whole: bool = False


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


class Touched:
    """What the records of one refresh touch, section by section; a ``SectionRefresh``
    (``planning.py``) for each site's build."""

    def __init__(self, pending: Pending) -> None:
        #: The records', to delete once applied.
        self.ids = pending.ids
        self.models: dict[str, ModelChanges] = {}
        for change in pending.changes:
            found = self.models.setdefault(change.model, ModelChanges())
            if change.row is None or not change.placed:
                found.whole = True
            elif change.before is not None:
                found.befores.append((change.row, change.before))
            else:
                found.rows.add(change.row)
        #: By section: the related models it reads, each with its lookup.
        self.through = {watched.section: watched.through for watched in compile_watch().sections}
        #: By section: the rows of the shards the last plan renders, for a progress bar.
        self.rows: dict[str, int] = {}

    def labels(self, plan: Plan) -> list[str]:
        """The models of the records ``plan``'s section reads."""
        if plan.queryset is None:
            return []  # static pages: no record changes them
        own = label(plan.queryset.ordered.model)
        return [name for name in (own, *self.through.get(plan.section, {})) if name in self.models]

    def reads(self, site: SitemapSite, sources: Iterable[BaseSource]) -> bool:
        """Whether a section of ``sources`` on ``site`` reads a model of the records."""
        return any(self.labels(compile_plan(source, site)) for source in sources)

    def __call__(
        self, plan: Plan, recorded: list[Shard], stale: Callable[[Shard], bool]
    ) -> list[PlannedShard] | None:
        pager, labels = plan.queryset, self.labels(plan)
        due = {i for i, shard in enumerate(recorded) if stale(shard)}
        whole = any(self.models[name].whole for name in labels)
        if labels and (whole or (pager is not None and pager.key is None)):
            return None  # every row, or one shard: compared as a build does
        indexes = self.shards_of(pager, recorded, labels) if labels else set()
        if indexes is None:
            return None
        planned = refreshed(plan, recorded, indexes | due)
        self.rows[plan.section] = sum(shard.rows or 0 for shard in planned if shard.kept is None)
        return planned

    def shards_of(
        self, pager: QueryPager | None, recorded: list[Shard], labels: list[str]
    ) -> set[int] | None:
        """The recorded shards the records' rows are in now and were in before; ``None``
        if one cannot be told."""
        assert pager is not None
        assert pager.key is not None
        model = pager.ordered.model
        if not python_order(model, pager.key, pager.ordered.db):
            return None
        keys = self.keys(pager, labels)
        if keys is None:
            return None
        # The first shard starts at the section's start (its low is None).
        bounds = [sortable(pager.key, shard.low or ()) for shard in recorded[1:]]
        return {bisect_right(bounds, sortable(pager.key, key)) for key in keys}

    def keys(self, pager: QueryPager, labels: list[str]) -> list[Key] | None:
        assert pager.key is not None
        model, key = pager.ordered.model, pager.key
        # The table, not the section's queryset: a row that left the section (no
        # longer published) is still in the shard it was listed in.
        rows = model._base_manager.using(pager.ordered.db)
        names = [column.name for column in key]
        keys: list[Key] = []
        own = self.models.get(label(model))
        if own is not None:
            wanted = own.rows | {pk for pk, _ in own.befores}
            now = dict(read_keys(rows, "pk__in", wanted, ["pk", *names]))
            for pk, before in own.befores:
                then = key_before(model, key, pk, before)
                if then is None:
                    return None
                keys.append(then)
            for pk in own.rows - set(now):
                if any(not is_pk(model, column) for column in key):
                    return None  # gone, and where it was is not recorded
                keys.append((pk,))
            keys += now.values()
        for name in labels:
            lookup = self.through.get(pager.section, {}).get(name)
            if lookup is not None:
                related = self.models[name].rows
                keys += [row for _, row in read_keys(rows, f"{lookup}__pk__in", related, names)]
        return keys


def read_keys(
    rows: models.QuerySet[Any], lookup: str, values: set[Any], names: list[str]
) -> Iterable[tuple[Any, Key]]:
    """``(first value, key)`` of the rows ``lookup`` finds among ``values``, batched."""
    ordered = sorted(values, key=repr)
    for first in range(0, len(ordered), ROWS_PER_QUERY):
        batch = ordered[first : first + ROWS_PER_QUERY]
        for found in rows.filter(**{lookup: batch}).values_list(*names).order_by():
            yield found[0], tuple(found[1:]) if names[0] == "pk" else tuple(found)


def is_pk(model: type[models.Model], column: KeyColumn) -> bool:
    return column.name in ("pk", model._meta.pk.name)


def key_before(
    model: type[models.Model], key: Sequence[KeyColumn], pk: Any, before: dict[str, Any]
) -> Key | None:
    """The key a row had before its record (``before`` by attribute name)."""
    values = []
    for column in key:
        if is_pk(model, column):
            values.append(pk)
            continue
        attname = getattr(model._meta.get_field(column.name), "attname", column.name)
        if attname not in before:
            return None  # recorded for another ordering
        values.append(before[attname])
    return tuple(values)


def python_order(model: type[models.Model], key: Sequence[KeyColumn], alias: str) -> bool:
    """Whether the database orders ``key`` as Python orders its values."""
    for column in key:
        found = model._meta.pk if column.name == "pk" else model._meta.get_field(column.name)
        kind = found.get_internal_type()
        binary = connections[alias].vendor == "sqlite" and not getattr(found, "db_collation", None)
        if kind not in PYTHON_ORDER and not (kind in TEXT and binary):
            return False
    return True


def sortable(key: Sequence[KeyColumn], values: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(
        Descending(value) if column.descending else value
        for column, value in zip(key, values, strict=True)
    )


def refreshed(plan: Plan, recorded: list[Shard], touched: set[int]) -> list[PlannedShard]:
    """The section's recorded shards, those of ``touched`` read again (their stats, in
    one query per run of neighbours) and rendered, cut if grown past ``page_size``,
    joined to the one before if left empty; the others kept."""
    pager = plan.queryset
    lows = [shard.low for shard in recorded]
    highs = [*lows[1:], None]
    stats: dict[int, dict[str, Any]] = {}
    for _, run in itertools.groupby(enumerate(sorted(touched)), lambda pair: pair[1] - pair[0]):
        numbers = [number for _, number in run]
        assert pager is not None, "a static section is touched by no record"
        found = range_stats(pager, [lows[i] for i in numbers], highs[numbers[-1]])
        stats.update({i: encode_stats(now) for i, now in zip(numbers, found, strict=True)})
    planned: list[PlannedShard] = []
    for i, shard in enumerate(recorded):
        names = [f.name for f in shard.files]
        if i not in stats:
            planned.append(PlannedShard(plan.section, shard.low, shard.stats, shard, high=highs[i]))
        elif stats[i]["rows"] > plan.page_size:
            pieces = cut(plan, shard.low, highs[i])
            pieces[0].names = names
            planned += pieces
        else:
            planned.append(PlannedShard(plan.section, shard.low, stats[i], names=names))
            planned[-1].high = highs[i]
    return without_empty(planned)
