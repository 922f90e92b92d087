"""The pages of a :class:`~django_sitemapkit.StaticSource`: its ``urls``, in order,
held in memory (a static section is a short list written in code)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django_sitemapkit.sources.pages import LastmodValue, PageStats, SectionStats, pages_of
from django_sitemapkit.sources.rows import Chunk
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.values import newest_lastmod


@dataclass(frozen=True)
class StaticPager:
    """The pages of a :class:`~django_sitemapkit.StaticSource`: its ``urls`` in order."""

    section: str
    pages: tuple[Any, ...]
    page_size: int
    #: A function from a page to its lastmod value (or the declared constant's).
    lastmod_of: Callable[[Any], Any] | None

    def count(self) -> int:
        return len(self.pages)

    def page_bounds(self, page: int) -> tuple[int, int]:
        return (page - 1) * self.page_size, page * self.page_size

    def page_rows(self, page: int) -> list[Any]:
        first, stop = self.page_bounds(page)
        return list(self.pages[first:stop])

    def lastmod(self, rows: Sequence[Any]) -> LastmodValue | None:
        if self.lastmod_of is None:
            return None
        # Invalid values are reported (and skipped) when the entries are written.
        return newest_lastmod(map(self.lastmod_of, rows))

    def section_stats(self) -> SectionStats:
        lastmod = self.lastmod(self.pages)
        return SectionStats(len(self.pages), lastmod, (self.pages, lastmod))

    def page_stats(self, page: int) -> PageStats:
        rows = self.page_rows(page)
        lastmod = self.lastmod(rows)
        return PageStats(len(rows), lastmod, (tuple(rows), lastmod))

    def page_lastmods(self, stats: SectionStats) -> tuple[LastmodValue | None, ...]:
        """Each page's own: the pages are in memory."""
        pages = -(-stats.rows // self.page_size)
        return tuple(self.page_stats(page).lastmod for page in range(1, pages + 1))

    def chunks(
        self, page: int, start: tuple[Any, ...] | None = None, tally: Tally | None = None
    ) -> Iterator[Chunk]:
        rows = self.page_rows(page)
        if tally is not None:
            tally.rows += len(rows)
        return iter([rows] if rows else [])

    def all_chunks(self, tally: Tally | None = None) -> Iterator[Chunk]:
        if tally is not None:
            tally.rows += len(self.pages)
        return iter([list(self.pages)] if self.pages else [])

    def numbered_chunks(self, tally: Tally | None = None) -> Iterator[tuple[int, Chunk]]:
        return pages_of(self.all_chunks(tally), self.page_size)
