"""Pages of a section: what the database says about them, and their rows.

A page is ``page_size`` rows of the section's order. Page 1 is read from the
start; page N from the key of its first row when the order is a key (see
``keyset.py``), else by offset. The rows' query is compiled once per page
(``rows.raw_chunks``) and read a chunk at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from django.db import DatabaseError
from django.db.models import Count, Max, QuerySet

from django_sitemapkit.sources.keyset import KeyColumn, from_start
from django_sitemapkit.sources.rows import Chunk, close_iterator, orm_chunks, raw_chunks
from django_sitemapkit.sources.skips import Tally, skip_row
from django_sitemapkit.sources.stored_lastmods import aggregate
from django_sitemapkit.sources.summary import separable, summary

LastmodValue = Any  # a date or datetime as the database returns it


class PageStats(NamedTuple):
    """What one aggregate query says about a page, before any row is read."""

    rows: int
    lastmod: LastmodValue | None
    fingerprint: tuple[Any, ...]
    #: The ordering key of the page's first row, when pages are read by keyset.
    start: tuple[Any, ...] | None = None


#: What a page that does not exist is described by.
NO_PAGE = PageStats(0, None, (0, None, None))


class SectionStats(NamedTuple):
    """One aggregate over a whole section: what the index's validators come from."""

    rows: int
    lastmod: LastmodValue | None
    fingerprint: tuple[Any, ...]


def is_undecodable(exc: BaseException) -> bool:
    """Whether a database error reports one value the driver cannot decode, rather than
    a database that is down: SQLite stores any bytes as TEXT (raw SQL can write a lone
    surrogate) and fails the fetch of that row."""
    cause = exc.__cause__ or exc
    return isinstance(cause, UnicodeDecodeError) or "Could not decode to UTF-8" in str(cause)


@dataclass(frozen=True)
class Scope:
    """A run of rows: ``rows[low:high]`` of a queryset in the section's order."""

    rows: QuerySet[Any]
    keys: QuerySet[Any]
    low: int
    high: int | None

    def slice(self, queryset: QuerySet[Any], offset: int, size: int | None) -> QuerySet[Any]:
        start = self.low + offset
        stop = self.high if size is None else start + size
        if self.high is not None and stop is not None:
            stop = min(stop, self.high)
        sliced: QuerySet[Any] = queryset[start:stop]
        return sliced


@dataclass(frozen=True)
class QueryPager:
    """Counting, describing and reading the pages of a queryset section."""

    section: str
    #: The section's rows in page order (a model queryset, for aggregates and seeks).
    ordered: QuerySet[Any]
    #: The same rows as the entries read them: ``values()`` or instances.
    row_queryset: QuerySet[Any]
    raw: bool
    key: Sequence[KeyColumn] | None
    page_size: int
    lastmod_path: str | None
    chunk_size: int
    strict: bool

    def count(self) -> int:
        return self.ordered.count()

    def aggregates(self, rows: QuerySet[Any]) -> dict[str, Any]:
        """Rows, highest primary key and newest lastmod of ``rows`` (``stored_lastmods.py``)."""
        return aggregate(
            rows, self.section, self.lastmod_path, count=Count("pk"), last_pk=Max("pk")
        )

    def section_stats(self) -> SectionStats:
        """Rows, newest lastmod and the validator of the index and kept starts."""
        if separable(self.ordered, self.lastmod_path):
            rows, last_pk, lastmod = summary(self.ordered, self.lastmod_path, section=self.section)
        else:
            stats = self.aggregates(self.ordered)
            rows, last_pk, lastmod = stats["count"], stats["last_pk"], stats["lastmod"]
        return SectionStats(rows, lastmod, (rows, last_pk, lastmod))

    def page_bounds(self, page: int) -> tuple[int, int]:
        return (page - 1) * self.page_size, page * self.page_size

    def seek(self, page: int) -> tuple[Any, ...] | None:
        """The key of the first row of ``page``, or ``None`` if there is no such page.

        Only the key's columns are read (an index can answer it, no join is
        made), so this costs a fraction of reading the page's rows by offset.
        """
        assert self.key is not None
        first, _ = self.page_bounds(page)
        names = [column.name for column in self.key]
        found = list(self.ordered.values_list(*names)[first : first + 1])
        return tuple(found[0]) if found else None

    def scope(self, page: int, start: tuple[Any, ...] | None) -> Scope | None:
        if self.key is None or page == 1:
            first, stop = self.page_bounds(page)
            return Scope(self.row_queryset, self.ordered, first, stop)
        if start is None:
            start = self.seek(page)
        if start is None:
            return None
        condition = from_start(self.key, start)
        return Scope(
            self.row_queryset.filter(condition),
            self.ordered.filter(condition),
            0,
            self.page_size,
        )

    def page_stats(self, page: int, start: tuple[Any, ...] | None = None) -> PageStats:
        """One aggregate of ``page``, from ``start`` (a key kept by ``starts.py``) or
        from where a seek finds it."""
        if self.key is not None and page > 1:
            start = self.seek(page) if start is None else start
            if start is None:
                return NO_PAGE
        scope = self.scope(page, start)
        assert scope is not None
        stats = self.aggregates(scope.slice(scope.keys, 0, None))
        lastmod = stats["lastmod"]
        fingerprint = (stats["count"], stats["last_pk"], lastmod)
        return PageStats(stats["count"], lastmod, fingerprint, start)

    def chunks(
        self, page: int, start: tuple[Any, ...] | None = None, tally: Tally | None = None
    ) -> Iterator[Chunk]:
        """The rows of ``page`` a chunk at a time; ``start`` is ``page_stats(page).start``."""
        scope = self.scope(page, start)
        if scope is None:
            return iter(())
        return self.read(scope, tally)

    def all_chunks(self, tally: Tally | None = None) -> Iterator[Chunk]:
        """Every row of the section in page order: pages 1, 2, ... read in one pass."""
        return self.read(Scope(self.row_queryset, self.ordered, 0, None), tally)

    def numbered_chunks(self, tally: Tally | None = None) -> Iterator[tuple[int, Chunk]]:
        return pages_of(self.all_chunks(tally), self.page_size)

    def fetch(self, scope: Scope, offset: int, chunk_size: int) -> Iterator[Chunk]:
        rows = scope.slice(scope.rows, offset, None)
        return raw_chunks(rows, chunk_size) if self.raw else orm_chunks(rows, chunk_size)

    def read(self, scope: Scope, tally: Tally | None) -> Iterator[Chunk]:
        """The scope's rows; a row the driver cannot decode costs that row alone.

        The cursor cannot step past such a row, and the rows fetched with it
        are lost with the error (older sqlite3 modules even fail on the row
        before it, which they read ahead): the rows are read again one query
        each, up to the one that fails alone; it is skipped and logged with
        its key, and reading goes on after it.
        """
        offset = 0
        while True:
            fetched = self.fetch(scope, offset, self.chunk_size)
            failed = None
            try:
                for chunk in fetched:
                    offset += len(chunk)
                    if tally is not None:
                        tally.rows += len(chunk)
                    yield chunk
            except DatabaseError as exc:
                if not is_undecodable(exc):
                    raise
                failed = exc
            finally:
                # Closed now, with its cursor, however the reading stops.
                close_iterator(fetched)
            if failed is None:
                return
            while rows := self.row_at(scope, offset):
                offset += 1
                if tally is not None:
                    tally.rows += 1
                yield rows
            if rows is not None or not self.skip_undecodable(scope, offset, failed, tally):
                return
            offset += 1

    def row_at(self, scope: Scope, offset: int) -> Chunk | None:
        """The row at ``offset``, read alone: ``[row]``, ``[]`` past the last one, or
        ``None`` if the driver cannot decode it."""
        rows = scope.slice(scope.rows, offset, 1)
        fetched = raw_chunks(rows, 1) if self.raw else orm_chunks(rows, 1)
        try:
            found = [row for chunk in fetched for row in chunk]
        except DatabaseError as exc:
            if not is_undecodable(exc):
                raise
            return None
        finally:
            close_iterator(fetched)
        return found

    def skip_undecodable(
        self, scope: Scope, offset: int, exc: DatabaseError, tally: Tally | None
    ) -> bool:
        """Log the row at ``offset``; ``False`` if even its key cannot be read."""
        try:
            keys = list(scope.slice(scope.keys, offset, 1).values_list("pk", flat=True))
        except DatabaseError as key_exc:
            if not is_undecodable(key_exc):
                raise
            keys = []
        if tally is not None:
            tally.rows += 1
        reason = f"the database driver cannot read it ({exc})"
        if not keys:
            skip_row(self.section, "the remaining rows", reason, tally, self.strict)
            return False
        skip_row(self.section, f"pk={keys[0]!r}", reason, tally, self.strict)
        return True


class Pager(Protocol):
    """What the pipeline, the index and the build ask of a section's pages: a queryset
    section's (:class:`QueryPager`), a ``StaticSource``'s (``static.StaticPager``) or
    a ``django.contrib.sitemaps`` class's (``compat.pages.ContribPager``)."""

    @property
    def section(self) -> str: ...

    @property
    def page_size(self) -> int: ...

    def count(self) -> int: ...

    def section_stats(self) -> SectionStats: ...

    def page_stats(self, page: int) -> PageStats: ...

    def chunks(
        self, page: int, start: tuple[Any, ...] | None = None, tally: Tally | None = None
    ) -> Iterator[Chunk]: ...

    def numbered_chunks(self, tally: Tally | None = None) -> Iterator[tuple[int, Chunk]]:
        """Every row of the section in page order, each chunk with its page's index
        (0 for page 1): what the build writes one file after another from."""
        ...


def pages_of(chunks: Iterator[Chunk], page_size: int) -> Iterator[tuple[int, Chunk]]:
    """``chunks`` cut where one page of ``page_size`` rows ends, each with its page's index."""
    try:
        read = 0
        for chunk in chunks:
            while chunk:
                room = page_size - read % page_size
                yield read // page_size, chunk[:room]
                read += min(room, len(chunk))
                chunk = chunk[room:]
    finally:
        close_iterator(chunks)
