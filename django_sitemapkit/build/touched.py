"""The shards a refresh renders: the pending change records (``changes/records.py``)
read as the keys of the rows they name, each key placed in its shard
(``placing.py``).

A section read by a key (``sources/keyset.py``) keeps its recorded cuts: a
changed row's key, now and before a move or a delete, falls in one shard. Only
those shards are read again (their stats, then their rows): a refresh after
one change reads one shard, whatever the section's size. The others keep their
files without a query, nor a look at the files (the periodic build does both).
A section without a key is one shard, rendered again if a record names its
model; static pages never are.

Where a record cannot be placed, the section's shards are compared as a build
does (``planning.plan_section()``), that section only, and the shards the
records' rows are in now are rendered whatever their stats (a new slug changes
none of them): a record of a row saved without being loaded (its place before
is not known). A record of every row (``changed(Model)``, a Wagtail page whose
new URL changes the URLs below it) renders every shard of the sections that
read the model: a new slug changes no count.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import models

from django_sitemapkit.build.manifest import Shard, encode_stats
from django_sitemapkit.build.placing import (
    batches,
    bisected,
    held,
    is_pk,
    key_before,
    placed,
    python_order,
)
from django_sitemapkit.build.planning import PlannedShard, cut, plan_section, without_empty
from django_sitemapkit.changes.reading import ANY_MODEL
from django_sitemapkit.changes.records import Pending
from django_sitemapkit.changes.watch import compile_watch, label
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.pages import QueryPager
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.ranges import Key, range_stats

Judge = Callable[[Shard], bool]


@dataclass
class ModelChanges:
    """The records of one model."""

    rows: set[Any] = field(default_factory=set)
    #: ``(primary key, its key columns before)`` of each row that moved or was deleted.
    befores: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    #: Rows whose place before is not known.
    unplaced: set[Any] = field(default_factory=set)
    #: A record of every row (``changed(Model)``, or one that could not be read).
    every: bool = False


class Touched:
    """What the records of one refresh touch, section by section; a ``SectionRefresh``
    (``planning.py``) for each site's build."""

    def __init__(self, pending: Pending) -> None:
        #: The records', to delete once applied.
        self.ids = pending.ids
        self.models: dict[str, ModelChanges] = {}
        watched = compile_watch().sections
        for change in pending.changes:
            if change.model == ANY_MODEL:
                # Set aside, of no model it could tell: any model a section reads.
                for section in watched:
                    self.models.setdefault(section.model, ModelChanges()).every = True
                continue
            found = self.models.setdefault(change.model, ModelChanges())
            if change.row is None:
                found.every = True
            elif not change.placed:
                found.unplaced.add(change.row)
            elif change.befores:
                found.befores += [(change.row, before) for before in change.befores]
            else:
                found.rows.add(change.row)
        #: By section: the related models it reads, each with its lookup.
        self.through = {section.section: section.through for section in watched}
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
        self, plan: Plan, recorded: list[Shard], stale: Judge, keeps: Judge
    ) -> list[PlannedShard]:
        planned = self.plan(plan, recorded, stale, keeps)
        self.rows[plan.section] = sum(shard.rows or 0 for shard in planned if shard.kept is None)
        return planned

    def plan(
        self, plan: Plan, recorded: list[Shard], stale: Judge, keeps: Judge
    ) -> list[PlannedShard]:
        pager, labels = plan.queryset, self.labels(plan)
        due = {i for i, shard in enumerate(recorded) if stale(shard)}
        if pager is None or not labels:
            return refreshed(plan, recorded, due)
        if pager.key is None:
            return plan_section(plan, recorded, lambda shard: False)
        if any(self.models[name].every for name in labels):
            # Every row may have changed in a way no count shows (an update()
            # of their slugs, a Wagtail page's new URL below it): every shard.
            return plan_section(plan, recorded, lambda shard: False)
        lows = [shard.low for shard in recorded]
        present, now = self.now(pager, lows, labels)
        before = self.before(pager, present)
        if before is None:
            # Compared, for what moved or went; the shards of the rows now
            # rendered whatever their stats.
            again = {id(recorded[number]) for number in now}
            return plan_section(plan, recorded, lambda s: keeps(s) and id(s) not in again)
        if python_order(pager):
            then = bisected(pager.key, lows, before)
        else:
            then = placed(pager.ordered.model, pager.key, lows, before, pager.ordered.db)
        return refreshed(plan, recorded, now | then | due)

    def listed(self, pager: QueryPager, labels: list[str]) -> Iterable[models.QuerySet[Any]]:
        """The rows of the records of ``labels``, in batches, from the table: a row that
        left the section (no longer published) is still in the shard that lists it."""
        model = pager.ordered.model
        table = model._base_manager.using(pager.ordered.db)
        for name in labels:
            found = self.models[name]
            own = name == label(model)
            lookup = "pk__in" if own else f"{self.through[pager.section][name]}__pk__in"
            moved = {pk for pk, _ in found.befores} if own else set()
            for batch in batches(found.rows | found.unplaced | moved):
                yield table.filter(**{lookup: batch})

    def now(
        self, pager: QueryPager, lows: list[Key | None], labels: list[str]
    ) -> tuple[set[Any], set[int]]:
        """The records' rows that are in the table, and the shards they are in now."""
        assert pager.key is not None
        names = [column.name for column in pager.key]
        present: set[Any] = set()
        keys: list[Key] = []
        numbers: set[int] = set()
        for rows in self.listed(pager, labels):
            if python_order(pager):
                for pk, *values in rows.values_list("pk", *names).order_by():
                    present.add(pk)
                    keys.append(tuple(values))
            else:
                found = held(rows, pager.key, lows)
                present |= set(found)
                numbers |= set(found.values())
        return present, numbers | bisected(pager.key, lows, keys)

    def before(self, pager: QueryPager, present: set[Any]) -> list[Key] | None:
        """The keys the records' rows had before a move or a delete; ``None`` if one is
        not known (a row saved without being loaded, or gone without its key)."""
        assert pager.key is not None
        model = pager.ordered.model
        own = self.models.get(label(model))
        if own is None:
            return []
        if own.unplaced:
            return None
        keys = []
        for pk, values in own.befores:
            then = key_before(model, pager.key, pk, values)
            if then is None:
                return None
            keys.append(then)
        for pk in own.rows - present:
            if not all(is_pk(model, column) for column in pager.key):
                return None  # gone, and where it was is not recorded
            keys.append((pk,))
        return keys


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
