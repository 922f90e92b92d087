"""The database-served index at the version of the change record (``SITEMAPKIT_CHANGES``,
docs/changes.md, "The index at constant cost").

The index's validator is the version (``records.version()``, one statement)
with what else shapes the index (each section's query, page size and database,
and the period of ``SITEMAPKIT_FULL_BUILD_EVERY``), so a conditional request
is answered without reading a section's table. What a full index needs of a
section (each page's bounds, rows and newest lastmod) is kept per process
under the version it was read at; at a new version, the records committed since
(``records.since()``) say which rows changed, and only their pages are read
again (``sources/versioned.py``). When the records cannot tell (some were
applied and deleted by a refresh in between, one was committed out of id
order, a change names every row of a model or a model the section reads
through a lookup), the section is read again whole, as without the record.

A section the record does not cover (a static or contrib one, or one whose
model ``SITEMAPKIT_CHANGES`` cannot tell) keeps its aggregate, read each time.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from threading import Lock
from typing import Any

from django.core.exceptions import EmptyResultSet

from django_sitemapkit.changes import records
from django_sitemapkit.changes.capture import watch
from django_sitemapkit.changes.watch import SectionWatch, label
from django_sitemapkit.conf import conf
from django_sitemapkit.documents import Section, left_out, sections_of
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.kept import keep
from django_sitemapkit.sources.lastmods import page_lastmods
from django_sitemapkit.sources.pages import QueryPager, SectionStats
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.starts import kept_key
from django_sitemapkit.sources.versioned import SectionPages, updated, walked

#: Sections whose pages are kept (least recently used first out).
CACHED_SECTIONS = 256
#: The most records read to bring the kept sections up to date; after more
#: changes than this, a section is read again whole.
MOST_RECORDS = 10_000
#: A record id above any (``BigAutoField``): read no record, only the version.
NO_RECORD = 2**63 - 1


@dataclass(frozen=True)
class Kept:
    """A section as the index saw it at ``version``; ``newest``: the highest record id
    seen then (later records have higher ids, or are counted missing)."""

    version: int
    newest: int
    period: int | None
    stats: SectionStats
    lastmods: tuple[Any, ...]
    #: A keyset section's pages, which a change updates; ``None``: read again whole.
    pages: SectionPages | None


_cache: OrderedDict[tuple[Any, ...], Kept] = OrderedDict()
_lock = Lock()


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def period() -> int | None:
    """The current period of ``SITEMAPKIT_FULL_BUILD_EVERY``, counted from the epoch so
    that every process agrees: a change nobody recorded shows from the next one."""
    every = conf.FULL_BUILD_EVERY
    return None if every is None else int(time.time() // every.total_seconds())


def is_versioned() -> bool:
    """Whether the index is validated by the version: ``SITEMAPKIT_CHANGES`` is set, and
    ``SITEMAPKIT_FULL_BUILD_EVERY`` is no zero (which asks for every read to be whole)."""
    every = conf.FULL_BUILD_EVERY
    return conf.CHANGES is not None and (every is None or every.total_seconds() > 0)


@dataclass(frozen=True)
class Covered:
    """A section the record covers: its plan, what its records are of, and what its
    pages are kept under (all the index reads of its declaration)."""

    plan: Plan
    pager: QueryPager
    watch: SectionWatch

    @cached_property
    def key(self) -> tuple[Any, ...]:
        pager = self.pager
        try:
            query = str(pager.ordered.query)
        except EmptyResultSet:  # .none(): no rows, whatever the version
            query = ""
        # The HTML index counts a page's URLs: rows times languages.
        languages = self.plan.languages
        return (
            pager.section,
            pager.ordered.db,
            query,
            pager.page_size,
            pager.lastmod_path,
            languages,
        )


@dataclass
class VersionedIndex:
    site: SitemapSite
    version: int
    period: int | None
    covered: list[Covered]
    #: The sections the record does not cover, with their aggregates.
    others: list[Section]

    def validated_by(self) -> tuple[Any, ...]:
        """What the index's validator is made of: the version and its period, each
        covered section's declaration, and the others' aggregates."""
        return (
            "changes",
            self.version,
            self.period,
            *(item.key for item in self.covered),
            *(
                (item.plan.section, item.plan.page_size, item.stats.fingerprint)
                for item in self.others
            ),
        )

    def cached(self) -> list[Section] | None:
        """Every section as kept at this version, without a query; ``None`` if one is not."""
        found = []
        with _lock:
            for item in self.covered:
                kept = _cache.get(item.key)
                if kept is None or (kept.version, kept.period) != (self.version, self.period):
                    return None
                found.append(Section(item.plan, kept.stats, kept.lastmods))
        return [*found, *self.others]

    def sections(self) -> list[Section]:
        """Every section, those the record covers brought up to date first (where
        ``cached()`` has not them all)."""
        with _lock:
            known = [_cache.get(item.key) for item in self.covered]
        watermarks = [kept.newest for kept in known if kept is not None and self.usable(kept)]
        read = records.since(min(watermarks, default=NO_RECORD), MOST_RECORDS)
        covered = []
        for item, kept in zip(self.covered, known, strict=True):
            kept = brought(item.pager, item.watch, kept, read, self.period)
            with _lock:
                _cache[item.key] = kept
                _cache.move_to_end(item.key)
                while len(_cache) > CACHED_SECTIONS:
                    _cache.popitem(last=False)
            keep_starts(item.pager, kept)
            covered.append(Section(item.plan, kept.stats, kept.lastmods))
        return [*covered, *self.others]

    def usable(self, kept: Kept) -> bool:
        return kept.pages is not None and kept.period == self.period


def brought(
    pager: QueryPager,
    section_watch: SectionWatch,
    kept: Kept | None,
    read: records.Since,
    period_: int | None,
) -> Kept:
    """The section at ``read.version``: ``kept`` with the pages of the records since,
    or read whole."""
    newest = read.newest or 0
    if kept is not None and kept.version == read.version and kept.period == period_:
        return kept
    if kept is not None and kept.pages is not None and kept.period == period_:
        since = [change for change in read.changes if change.id > kept.newest]
        # Exactly the records the version counts since: none applied (deleted) or
        # committed below the id last seen in between.
        if records.accounted(since, kept.newest) == read.version - kept.version:
            keys = changed_keys(pager, section_watch, since)
            pages = None if keys is None else updated(pager, kept.pages, keys)
            if pages is not None:
                newest = max(kept.newest, newest)
                return Kept(read.version, newest, period_, pages.stats, pages.lastmods, pages)
    if pager.key is None:
        stats = pager.section_stats()
        return Kept(read.version, newest, period_, stats, page_lastmods(pager, stats), None)
    pages = walked(pager)
    return Kept(read.version, newest, period_, pages.stats, pages.lastmods, pages)


def changed_keys(
    pager: QueryPager, section_watch: SectionWatch, changes: Iterable[records.Changed]
) -> list[tuple[Any, ...]] | None:
    """Where each changed row of the section's model is in the key's order, and was
    before it moved; ``None`` if that cannot be told (a change to every row, or to a
    row of a model read through a lookup)."""
    assert pager.key is not None
    model = pager.ordered.model
    mine = []
    for change in changes:
        if change.model in section_watch.through or change.model == records.ANY_MODEL:
            return None
        if change.model != label(model):
            continue
        if change.row is None or not change.placed:
            return None
        mine.append(change)
    if len(pager.key) == 1:
        return [(change.row,) for change in mine]
    names = [column.name for column in pager.key]
    attnames = [
        None if name in ("pk", model._meta.pk.name) else model._meta.get_field(name).attname
        for name in names
    ]
    # Where each row is now, in its table (a row the section leaves out now is read
    # too: its page is where it was, if it did not move).
    rows = model._base_manager.using(pager.ordered.db).filter(pk__in={c.row for c in mine})
    now = {row[-1]: tuple(row[:-1]) for row in rows.values_list(*names, "pk")}
    found = []
    for change in mine:
        if change.row in now:
            found.append(now[change.row])
        for before in change.befores:
            if any(a is not None and a not in before for a in attnames):
                return None
            found.append(tuple(change.row if a is None else before[a] for a in attnames))
        if not change.befores and change.row not in now:
            return None  # gone, and where it was is not known
    return found


def versioned_index(site: SitemapSite) -> VersionedIndex | None:
    """The index of ``site`` at the current version; ``None`` without the record."""
    if not is_versioned():
        return None
    watched = {item.section: item for item in watch().sections}
    covered: list[Covered] = []
    others: list[Section] = []
    for source in registry.sections(site):
        try:
            plan = compile_plan(source, site)
            pager = plan.queryset
            section_watch = watched.get(plan.section)
            if (
                pager is None
                or section_watch is None
                or section_watch.model != label(pager.ordered.model)
            ):
                others.extend(sections_of([plan]))
                continue
        except Exception as exc:
            left_out(type(source).name, "counting its rows", exc)
            continue
        covered.append(Covered(plan, pager, section_watch))
    return VersionedIndex(site, records.version(), period(), covered, others)


def validator_of(version: int, period_: int | None) -> tuple[Any, ...]:
    return ("changes", version, period_)


def keep_starts(pager: QueryPager, section: Kept) -> None:
    """Each page's first key as the index found it, kept where the page looks for it
    at the same version (``page_validator()``): a page after the first then reads no
    key before it, the first time too."""
    if section.pages is None:
        return
    key = kept_key(pager, validator_of(section.version, section.period))
    runs = enumerate(section.pages.pages, 1)
    if key is not None:
        keep(key, starts={page: run.first for page, run in runs if page > 1 and run.first})


def page_validator(plan: Plan) -> Callable[[], tuple[Any, ...]] | None:
    """What a page of a section the record covers keeps its start under: the version
    and its period, as the index (one statement, and every recorded change, a key's
    move included, moves it); ``None`` without the record, or for a section it does
    not cover (the section's own validator then, ``QueryPager.page_stats()``)."""
    pager = plan.queryset
    if not is_versioned() or pager is None:
        return None
    section_watch = {item.section: item for item in watch().sections}.get(plan.section)
    if section_watch is None or section_watch.model != label(pager.ordered.model):
        return None
    return lambda: validator_of(records.version(), period())
