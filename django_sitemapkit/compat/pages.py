"""The pages of a ``django.contrib.sitemaps`` class, as contrib pages them.

A page is ``limit`` units of the class's ``items()``: the items themselves, or,
with ``i18n``, one ``(item, language)`` pair per language of each item. Only a
page's units are read, a chunk at a time: a QuerySet is sliced in the
database and read with ``iterator()``; a list is sliced. With ``i18n`` and the
same languages for every item, the pairs of a page are worked out from the
slice of items that holds them; a class that gives each item its own
languages (``get_languages_for_item()``) has every pair listed first, as
contrib does, since no page's bounds are known otherwise.

A class that overrides ``get_urls()`` (Wagtail's, djangoproject.com's) writes
a page's URL dicts itself: those dicts are the page's units.

A page's lastmods are read as contrib reads them (``lastmods.py``); a pager
that ``records`` reads them from the units it hands out, so a page written
whole needs no first pass for its ``Last-Modified``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, QuerySet

from django_sitemapkit.compat.classes import NOT_DECLARED, ContribClass, Lastmods
from django_sitemapkit.compat.lastmods import contrib_lastmod, every_lastmod, newest_of
from django_sitemapkit.compat.units import count_of, page_number, paired, sliced
from django_sitemapkit.sources.lastmods import dated_path
from django_sitemapkit.sources.pages import LastmodValue, PageStats, SectionStats
from django_sitemapkit.sources.rows import Chunk, close_iterator
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.sources.stored_lastmods import aggregate
from django_sitemapkit.values import newest_lastmod

#: The page count ``?p=`` is read against where the class's own ``get_urls()`` finds
#: the last page: as many as a nine-digit page number (``urls.py``) can name.
UNCOUNTED = 10**9 * 50_000


@dataclass
class ContribPager:
    section: str
    contrib: ContribClass
    page_size: int
    chunk_size: int
    #: What the page lastmods and the URL dicts of pages already asked for were
    #: (a pager lives for one request, or one section of a build).
    _stats: dict[int, PageStats] = field(default_factory=dict)
    _urls: dict[int, list[Any]] = field(default_factory=dict)
    _count: int | None = None
    _pairs: list[Any] | None = None
    _newest_item: LastmodValue | None = None
    #: Whether ``chunks()`` keeps the lastmods of a page it hands out whole as its
    #: ``page_stats()`` (``records_page()``): the drop-in's page written whole,
    #: before its headers.
    records: bool = False

    def count(self) -> int:
        """Units in the section: what contrib's ``Paginator`` counts."""
        if self._count is None:
            contrib = self.contrib
            if contrib.counted_with_lastmods:
                self._count, self._newest_item = contrib.item_pass(self.chunk_size)
            elif contrib.own_urls or not contrib.i18n:
                self._count = (
                    contrib.site.paginator.count if contrib.own_urls else count_of(contrib.items)
                )
            elif contrib.languages is not None:
                self._count = count_of(contrib.items) * len(contrib.languages)
            else:
                self._count = len(self.pairs())
        return self._count

    def paginator(self) -> Paginator[Any]:
        """A paginator over as many units, for contrib's page numbers and 404s."""
        return Paginator(range(self.count()), self.page_size)

    def number(self, value: object) -> int:
        if self.contrib.own_urls:
            # contrib's sitemap view counts nothing itself: get_urls() pages the items
            # and raises its paginator's EmptyPage past the last page (a 404 here too,
            # ContribClass.page_urls()). Counting first would cost a second COUNT.
            number = page_number(Paginator(range(UNCOUNTED), self.page_size), value)
            self.page_urls(number)
            return number
        return page_number(self.paginator(), value)

    def pairs(self) -> list[Any]:
        """Every ``(item, language)`` pair, in contrib's order (per-item languages only)."""
        if self._pairs is None:
            site, items = self.contrib.site, self.contrib.items
            self._pairs = [
                (item, code) for item in items for code in site.get_languages_for_item(item)
            ]
        return self._pairs

    def bounds(self, page: int) -> tuple[int, int]:
        first = (page - 1) * self.page_size
        return first, min(first + self.page_size, self.count())

    def units(self, page: int) -> Iterator[Any]:
        """The units of ``page``, read lazily (close the iterator if you stop early)."""
        if self.contrib.own_urls:
            return iter(self.page_urls(page))
        return self.units_between(*self.bounds(page))

    def units_between(self, first: int, stop: int) -> Iterator[Any]:
        """Units ``first`` to ``stop`` of a class whose units are its items (or pairs)."""
        contrib = self.contrib
        if stop <= first:
            return iter(())
        if not contrib.i18n:
            return sliced(contrib.items, first, stop, self.chunk_size)
        if contrib.languages is None:
            return iter(self.pairs()[first:stop])
        return paired(contrib.items, contrib.languages, first, stop, self.chunk_size)

    def page_urls(self, page: int) -> list[Any]:
        """What ``get_urls()`` returns for ``page``, given the base URL's host."""
        if page not in self._urls:
            self._urls = {page: self.contrib.page_urls(page)}
        return self._urls[page]

    def chunks(
        self, page: int, start: tuple[Any, ...] | None = None, tally: Tally | None = None
    ) -> Iterator[Chunk]:
        units = self.units(page)
        reader = self.unit_lastmod() if self.records_page(page) else None
        newest: list[LastmodValue] = []
        missing = False
        try:
            while chunk := list(islice(units, self.chunk_size)):
                if tally is not None:
                    tally.rows += len(chunk)
                if reader is not None:
                    every, latest = newest_of(map(reader, chunk))
                    missing = missing or every is None
                    if latest is not None:
                        newest.append(latest)
                yield chunk
            if reader is not None:
                # Read to its end: what page_stats() would have read in a pass of its own.
                latest = newest_lastmod(newest)
                self.keep_stats(page, (None if missing else latest, latest))
        finally:
            # Closed now, not by the garbage collector in the middle of another
            # query: a QuerySet's iterator holds a server-side cursor on PostgreSQL.
            close_iterator(units)

    def numbered_chunks(self, tally: Tally | None = None) -> Iterator[tuple[int, Chunk]]:
        for page in range(1, self.paginator().num_pages + 1):
            for chunk in self.chunks(page, None, tally):
                yield page - 1, chunk

    def records_page(self, page: int) -> bool:
        """Whether ``chunks(page)`` reads its units' lastmods: only where they would
        otherwise take a pass of their own (a ``lastmod()`` method). A
        ``GenericSitemap``'s aggregate query costs less than reading each item's
        date in Python; a constant, or ``get_urls()``'s dicts, nothing."""
        return (
            self.records
            and page not in self._stats
            and not self.contrib.own_urls
            and self.contrib.lastmods is Lastmods.PER_ITEM
        )

    def page_rows(self, page: int) -> int:
        """The units on ``page``."""
        if self.contrib.own_urls:
            return len(self.page_urls(page))
        first, stop = self.bounds(page)
        return max(stop - first, 0)

    def page_stats(self, page: int) -> PageStats:
        """The units on ``page`` and, when every one has a lastmod, the newest."""
        if page not in self._stats:
            if self.contrib.own_urls:
                # The page's URL dicts say what it holds; no count of the section.
                first, stop = (page - 1) * self.page_size, 0
            else:
                first, stop = self.bounds(page)
            rows = self.page_rows(page)
            self.keep_stats(page, self.page_lastmod(page, first, stop) if rows else (None, None))
        return self._stats[page]

    def keep_stats(
        self, page: int, lastmods: tuple[LastmodValue | None, LastmodValue | None]
    ) -> None:
        """``page_stats(page)``, given ``page_lastmod()``'s answer."""
        (every, newest), rows = lastmods, self.page_rows(page)
        first = (page - 1) * self.page_size
        self._stats[page] = PageStats(rows, every, (rows, first, newest))

    def unit_lastmod(self) -> Callable[[Any], Any]:
        """A unit's lastmod as the class gives it (``newest_of()`` reads it as contrib
        does), as ``page_lastmod()`` reads the units of a page."""
        if self.contrib.own_urls:
            return lambda url: url.get("lastmod")
        kind = self.contrib.lastmods
        if kind is Lastmods.NONE:
            return lambda unit: None
        if kind is Lastmods.CONSTANT:
            constant = self.contrib.site.lastmod
            return lambda unit: constant
        return self.contrib.lastmod_of

    def page_lastmod(
        self, page: int, first: int, stop: int
    ) -> tuple[LastmodValue | None, LastmodValue | None]:
        """The newest lastmod of ``page`` if every unit has one, and the newest of those given."""
        if self.contrib.own_urls:
            # Whatever the class declares, its dicts say what the page holds.
            return newest_of(map(self.unit_lastmod(), self.page_urls(page)))
        kind = self.contrib.lastmods
        if kind is Lastmods.NONE:
            return None, None
        if kind is Lastmods.CONSTANT:
            constant = contrib_lastmod(self.contrib.site.lastmod)
            return constant, constant
        if kind is Lastmods.DATE_FIELD:
            return self.date_field_lastmods(self.contrib.items[first:stop])
        units = self.units(page)
        try:
            return newest_of(map(self.unit_lastmod(), units))
        finally:
            close_iterator(units)

    @cached_property
    def latest(self) -> Any:
        """The class's own ``get_latest_lastmod()``, called once, or ``NOT_DECLARED``."""
        return self.contrib.latest_lastmod()

    @cached_property
    def section_newest(self) -> LastmodValue | None:
        """A ``GenericSitemap``'s newest ``date_field``: ``Max()`` alone, which a
        database answers from an index on the field where there is one."""
        items, date_field = self.contrib.items, self.contrib.date_field
        assert date_field is not None
        newest = aggregate(items, self.section, dated_path(items, date_field))["lastmod"]
        return contrib_lastmod(newest)

    def date_field_lastmods(
        self, queryset: QuerySet[Any]
    ) -> tuple[LastmodValue | None, LastmodValue | None]:
        """``page_lastmod()`` of a ``GenericSitemap``: one aggregate query."""
        date_field = self.contrib.date_field
        assert date_field is not None
        # A field that holds no date has no MAX() to read (its values are left out).
        path = dated_path(queryset, date_field)
        found = aggregate(queryset, self.section, path, items=Count("pk"), dated=Count(date_field))
        newest = contrib_lastmod(found["lastmod"])
        return (newest if found["items"] == found["dated"] else None), newest

    def section_stats(self) -> SectionStats:
        count = self.count()
        pages = self.paginator().num_pages if count else 0
        lastmods = self.page_lastmods(SectionStats(count, None, ())) if pages else ()
        return SectionStats(count, every_lastmod(lastmods), (count, self.page_size, lastmods))

    def page_lastmods(self, stats: SectionStats) -> tuple[LastmodValue | None, ...]:
        """Each page's lastmod in the index, as cheaply as the class allows: its own
        ``get_latest_lastmod()`` (contrib's choice, for every page), one aggregate
        of a ``GenericSitemap``'s ``date_field``, a constant; else each page's newest,
        read from its items, when every one has a lastmod (contrib's
        ``get_latest_lastmod()`` is ``None`` when one item has none)."""
        pages = -(-stats.rows // self.page_size)
        if self.latest is not NOT_DECLARED:
            return (contrib_lastmod(self.latest),) * pages
        kind = self.contrib.lastmods
        if kind is Lastmods.DATE_FIELD:
            return (self.section_newest,) * pages
        if kind is Lastmods.CONSTANT:
            return (contrib_lastmod(self.contrib.site.lastmod),) * pages
        if kind is Lastmods.NONE:
            return (None,) * pages
        if self.contrib.counted_with_lastmods:
            # contrib's index lists every page with get_latest_lastmod(), the newest
            # lastmod(item): read with the count, not from every page's URL dicts.
            self.count()
            return (contrib_lastmod(self._newest_item),) * pages
        numbers = range(1, pages + 1)
        if not self.contrib.own_urls and any(page not in self._stats for page in numbers):
            self.read_every_page(pages)
        return tuple(self.page_stats(page).lastmod for page in numbers)

    def read_every_page(self, pages: int) -> None:
        """The stats of pages 1 to ``pages`` from one pass over the units: one query,
        as contrib's ``get_latest_lastmod()`` reads them, not one a page."""
        reader, units = self.unit_lastmod(), self.units_between(0, self.count())
        try:
            for page in range(1, pages + 1):
                self.keep_stats(page, newest_of(map(reader, islice(units, self.page_size))))
        finally:
            close_iterator(units)
