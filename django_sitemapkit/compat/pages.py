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
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Count, Max, QuerySet
from django.http import Http404

from django_sitemapkit.compat.classes import NOT_DECLARED, ContribClass, Lastmods
from django_sitemapkit.sources.pages import LastmodValue, PageStats, SectionStats
from django_sitemapkit.sources.rows import Chunk, close_iterator
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.values import newest_lastmod

#: The page count ``?p=`` is read against where the class's own ``get_urls()`` finds
#: the last page: as many as a nine-digit page number (``urls.py``) can name.
UNCOUNTED = 10**9 * 50_000


def every_lastmod(values: Iterable[LastmodValue | None]) -> LastmodValue | None:
    """The newest of ``values`` if none is missing: contrib sends ``Last-Modified``
    only when every URL of the page has a lastmod."""
    return newest_of(values)[0]


def newest_of(
    values: Iterable[LastmodValue | None],
) -> tuple[LastmodValue | None, LastmodValue | None]:
    """``every_lastmod(values)``, and the newest of the values that are not ``None``:
    one pass, nothing kept but the two answers."""
    missing = False

    def seen() -> Iterator[LastmodValue]:
        nonlocal missing
        for value in values:
            if value is None:
                missing = True
            else:
                yield value

    newest = newest_lastmod(seen())
    return (None if missing else newest), newest


def page_number(paginator: Paginator[Any], value: object) -> int:
    """``?p=`` as contrib reads it, with contrib's 404s (not a number, out of range)."""
    try:
        return paginator.validate_number(value)  # type: ignore[arg-type]
    except PageNotAnInteger as exc:
        raise Http404(f"No page '{value}'") from exc
    except EmptyPage as exc:
        raise Http404(f"Page {value} empty") from exc


@dataclass
class ContribPager:
    section: str
    contrib: ContribClass
    page_size: int
    chunk_size: int
    #: What the page lastmods and the URL dicts of pages already asked for were
    #: (a pager lives for one request, or one section of a build).
    _stats: dict[int, PageStats] = field(default_factory=dict)
    _newest: dict[int, LastmodValue | None] = field(default_factory=dict)
    _urls: dict[int, list[Any]] = field(default_factory=dict)
    _count: int | None = None
    _pairs: list[Any] | None = None
    _newest_item: LastmodValue | None = None

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
        contrib = self.contrib
        if contrib.own_urls:
            return iter(self.page_urls(page))
        first, stop = self.bounds(page)
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
        try:
            while chunk := list(islice(units, self.chunk_size)):
                if tally is not None:
                    tally.rows += len(chunk)
                yield chunk
        finally:
            # Closed now, not by the garbage collector in the middle of another
            # query: a QuerySet's iterator holds a server-side cursor on PostgreSQL.
            close_iterator(units)

    def numbered_chunks(self, tally: Tally | None = None) -> Iterator[tuple[int, Chunk]]:
        for page in range(1, self.paginator().num_pages + 1):
            for chunk in self.chunks(page, None, tally):
                yield page - 1, chunk

    def page_stats(self, page: int) -> PageStats:
        """The units on ``page`` and, when every one has a lastmod, the newest."""
        if page not in self._stats:
            if self.contrib.own_urls:
                # The page's URL dicts say what it holds; no count of the section.
                rows = len(self.page_urls(page))
                first, stop = (page - 1) * self.page_size, 0
            else:
                first, stop = self.bounds(page)
                rows = max(stop - first, 0)
            every, newest = self.page_lastmod(page, first, stop) if rows else (None, None)
            self._stats[page] = PageStats(rows, every, (rows, first, newest))
            self._newest[page] = newest
        return self._stats[page]

    def page_lastmod(
        self, page: int, first: int, stop: int
    ) -> tuple[LastmodValue | None, LastmodValue | None]:
        """The newest lastmod of ``page`` if every unit has one, and the newest of those given."""
        if self.contrib.own_urls:
            # Whatever the class declares, its dicts say what the page holds.
            return newest_of(url.get("lastmod") for url in self.page_urls(page))
        kind = self.contrib.lastmods
        if kind is Lastmods.NONE:
            return None, None
        if kind is Lastmods.CONSTANT:
            return self.contrib.site.lastmod, self.contrib.site.lastmod
        if kind is Lastmods.DATE_FIELD:
            return self.date_field_lastmods(self.contrib.items[first:stop])
        units = self.units(page)
        try:
            return newest_of(map(self.contrib.lastmod_of, units))
        finally:
            close_iterator(units)

    def date_field_lastmods(
        self, queryset: QuerySet[Any]
    ) -> tuple[LastmodValue | None, LastmodValue | None]:
        """``page_lastmod()`` of a ``GenericSitemap``: one aggregate query."""
        date_field = self.contrib.date_field
        assert date_field is not None
        found = queryset.aggregate(
            items=Count("pk"), dated=Count(date_field), newest=Max(date_field)
        )
        newest = found["newest"]
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
        read from its items."""
        pages = -(-stats.rows // self.page_size)
        latest = self.contrib.latest_lastmod()
        if latest is not NOT_DECLARED:
            return (latest,) * pages
        kind = self.contrib.lastmods
        if kind is Lastmods.DATE_FIELD:
            return (self.date_field_lastmods(self.contrib.items)[1],) * pages
        if kind is Lastmods.CONSTANT:
            return (self.contrib.site.lastmod,) * pages
        if kind is Lastmods.NONE:
            return (None,) * pages
        if self.contrib.counted_with_lastmods:
            # contrib's index lists every page with get_latest_lastmod(), the newest
            # lastmod(item): read with the count, not from every page's URL dicts.
            self.count()
            return (self._newest_item,) * pages
        return tuple(self.newest_on_page(page) for page in range(1, pages + 1))

    def newest_on_page(self, page: int) -> LastmodValue | None:
        """The newest lastmod of ``page``'s units that have one (for the index)."""
        self.page_stats(page)
        return self._newest[page]


def count_of(items: Any) -> int:
    """``items`` counted as Django's ``Paginator`` counts them."""
    return Paginator(items, 1).count


def sliced(items: Any, first: int, stop: int, chunk_size: int) -> Iterator[Any]:
    """``items[first:stop]``: a QuerySet sliced in the database and read in chunks."""
    part = items[first:stop]
    if isinstance(part, QuerySet):
        return part.iterator(chunk_size=chunk_size)
    return iter(part)


def paired(
    items: Any, languages: Sequence[str], first: int, stop: int, chunk_size: int
) -> Iterator[tuple[Any, str]]:
    """Pairs ``first`` to ``stop`` of ``(item, language)`` for each item and each of
    ``languages``: read from the items that hold them."""
    width = len(languages)
    start_item, end_item = first // width, -(-stop // width)
    rows = sliced(items, start_item, end_item, chunk_size)
    try:
        position = start_item * width
        for item in rows:
            for code in languages:
                if first <= position < stop:
                    yield item, code
                position += 1
    finally:
        close_iterator(rows)
