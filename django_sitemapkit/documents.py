"""One document pipeline for the views, the drop-in and the build: plan → page →
lines → encoder, and the index.

A page means the same everywhere: its rows are read through the plan's pager,
each chunk becomes lines through the plan's writer, a line too large for any
document is left out here (the one place that rule lives), and a document is
assembled and its cut judged in one way (``open_document()``, ``encoded()``).
The index is built here too, from the pages' lastmods, with the one ``<loc>``
rule the served and the built index share (``index_locs()``).
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import NamedTuple

from django.db import DatabaseError

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding.encoder import (
    Encoder,
    Entry,
    Layout,
    Lines,
    entry_lines,
    sitemap_element,
    url_element,
)
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.policy import sitemap_directory
from django_sitemapkit.names import GZIP_SUFFIX, page_filename
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.framework import UnusableSite
from django_sitemapkit.sites.robots_txt import RobotsUnavailable
from django_sitemapkit.sources.pages import LastmodValue, SectionStats
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import Chunk, close_iterator
from django_sitemapkit.sources.skips import Tally, skip_row
from django_sitemapkit.values import Horizon, format_lastmod

logger = logging.getLogger("django_sitemapkit")

#: Writes a chunk of rows as lines, counting what it skips in the tally.
ChunkWriter = Callable[[Chunk, "Tally | None"], Lines]


def page_runs(
    plan: Plan,
    page: int,
    start: tuple[object, ...] | None = None,
    tally: Tally | None = None,
    element: Callable[[Entry], str] = url_element,
    *,
    write: ChunkWriter | None = None,
) -> Iterator[Lines]:
    """The lines of ``page``, a chunk of rows at a time, each chunk written in the
    plan's context: by the plan's writer with ``element``, or by ``write`` (the
    HTML sitemap's, which reads each row's title too)."""
    chunks = plan.pager.chunks(page, start, tally)
    return written(plan, page, chunks, tally, element, write=write)


def written(
    plan: Plan,
    page: int,
    chunks: Iterator[Chunk],
    tally: Tally | None = None,
    element: Callable[[Entry], str] = url_element,
    *,
    write: ChunkWriter | None = None,
) -> Iterator[Lines]:
    """The lines of each chunk of the rows of ``page``, written in the plan's context;
    when they end, the page's skips are summed up in the log (``Tally.end_page()``).

    ``fitting()`` reads the next run only after it has left out the lines of
    the last one, so its skips are summed up too.
    """
    writer = plan.writer
    try:
        for chunk in chunks:
            with plan.context():
                lines = (
                    writer.lines(chunk, tally, element) if write is None else write(chunk, tally)
                )
            yield lines
    finally:
        close_iterator(chunks)
        if tally is not None:
            tally.end_page(page)


def fitting(
    runs: Iterable[Lines], section: str, layout: Layout, tally: Tally | None = None
) -> Iterator[Lines]:
    """Leave out (log, or raise in strict mode) a line no document could hold: the
    encoder would otherwise cut before it and write an empty, schema-invalid page.

    Only a ``SITEMAPKIT_MAX_BYTES`` far below the default makes this possible;
    the exact size is measured only for runs with a line that might not fit.
    """
    room = conf.MAX_BYTES - len(layout.opening) - len(layout.closing)
    for lines, lastmods in runs:
        # A character is at most 4 bytes of UTF-8.
        if not lines or max(map(len, lines)) * 4 <= room:
            yield lines, lastmods
            continue
        kept_lines: list[str] = []
        kept_lastmods: list[str | None] = []
        for line, lastmod in zip(lines, lastmods, strict=True):
            size = len(line.encode())
            if size <= room:
                kept_lines.append(line)
                kept_lastmods.append(lastmod)
                continue
            reason = (
                f"its <url> takes {size:,} bytes, more than a document of "
                f"SITEMAPKIT_MAX_BYTES ({conf.MAX_BYTES:,}) has room for"
            )
            skip_row(section, repr(located(line)), reason, tally, conf.STRICT)
        yield kept_lines, kept_lastmods


def located(line: str) -> str:
    """The location a line is for (as the document escapes it)."""
    start = line.find("<loc>") + 5
    end = line.find("</loc>", start)
    return html.unescape(line[start:end]) if start > 4 and end > 0 else line[:80]


def first_run(runs: Iterator[Lines]) -> Iterator[Lines] | None:
    """``runs`` from its first line on, or ``None`` if it has none (``runs`` is then
    exhausted, and its rows closed with it)."""
    for lines, lastmods in runs:
        if lines:
            return chain([(lines, lastmods)], runs)
    return None


class Opened(NamedTuple):
    """A document with at least one line: its encoder, and its runs from that line on."""

    encoder: Encoder
    runs: Iterator[Lines]


def open_document(
    runs: Iterator[Lines], layout: Layout, *, max_urls: int, max_bytes: int
) -> Opened | None:
    """The one assembly of a page or an index, for the views, the drop-in and the build:
    ``None`` when ``runs`` has no line (a page whose rows gave no valid entry, which
    no caller may write: the schema requires one ``<url>``), else its encoder."""
    started = first_run(runs)
    if started is None:
        return None
    return Opened(Encoder(layout, max_urls=max_urls, max_bytes=max_bytes), started)


def encoded(document: Opened, on_cut: Callable[[Encoder], None]) -> Iterator[bytes]:
    """The document's bytes; its rows are released however the stream ends.

    The one cut policy: every caller offers a document exactly the lines it is
    meant to hold (a page its rows, an index at most 50,000 pages, the excess
    reported before the first byte), so an encoder that cut it left out lines
    that belong in it, at ``max_urls`` or at ``SITEMAPKIT_MAX_BYTES``. That is
    reported once the document is complete, through ``on_cut``: the views log
    it, the build raises. Only the build's pages continue a cut document in the
    next file (``Encoder.overflow``), and so do not stream through here.
    """
    encoder, runs = document
    try:
        yield from encoder.stream(runs)
    finally:
        # Release the rows (and their cursor) now, even if the client left.
        close_iterator(runs)
    if encoder.cut:
        on_cut(encoder)


# -- the index ------------------------------------------------------------------


class IndexedPage(NamedTuple):
    section: str
    page: int
    lastmod: LastmodValue | None


class Section(NamedTuple):
    """A section as the index sees it: its plan and its whole-section aggregate, and its
    pages' lastmods where they are known already (``changes/index.py``)."""

    plan: Plan
    stats: SectionStats
    lastmods: tuple[LastmodValue | None, ...] | None = None


def sections(site: SitemapSite) -> list[Section]:
    """Every section of ``site`` with its aggregate: one query each. A source whose
    plan or aggregate raises is left out (``left_out()``)."""
    found = []
    for source in registry.sections(site):
        try:
            found += sections_of([compile_plan(source, site)])
        except Exception as exc:
            left_out(type(source).name, "counting its rows", exc)
    return found


def sections_of(plans: Iterable[Plan]) -> list[Section]:
    return [Section(plan, plan.pager.section_stats()) for plan in plans]


#: Failures of what every section reads (the database, the Site, robots.txt), which
#: a crawler is asked to come back after (the one 503, ``views/http.py``): never one
#: section's, to leave out.
UNAVAILABLE = (DatabaseError, UnusableSite, RobotsUnavailable)


def left_out(section: str, doing: str, exc: Exception) -> None:
    """Log that the index leaves ``section`` out, as ``doing`` raised ``exc``; re-raise
    an ``UNAVAILABLE`` one."""
    if isinstance(exc, UNAVAILABLE):
        raise exc
    # Left out, not the whole index a 500 nor a listed page that 500s: the other
    # sections stay listed, and no crawler is sent to a page that cannot be answered.
    logger.error(
        "Sitemap source %r is left out of the index: %s raised %s: %s",
        section,
        doing,
        type(exc).__name__,
        exc,
        exc_info=exc,
    )


def indexed_pages(found: Iterable[Section]) -> list[IndexedPage]:
    """Every page of every section; a section with no rows has none, and one whose
    pages' lastmods raise is left out."""
    pages: list[IndexedPage] = []
    for section in found:
        name = section.plan.section
        try:
            lastmods = (
                section.plan.lastmods(section.stats)
                if section.lastmods is None
                else section.lastmods
            )
        except Exception as exc:
            left_out(name, "reading its pages' lastmods", exc)
            continue
        pages += [IndexedPage(name, number, lastmod) for number, lastmod in enumerate(lastmods, 1)]
    return pages


def index_lastmod(value: LastmodValue | None, horizon: Horizon) -> str | None:
    """A page's newest lastmod, left out if it cannot be written (the entry that
    holds it is skipped from the page itself, for the same reason), or if it is later
    than ``horizon``: the page lists that row without its date, and no date of the
    page's other rows is known without reading them, so the page has none."""
    if value is None:
        return None
    try:
        written = format_lastmod(value)
    except InvalidEntry:
        return None
    return None if horizon.passed(written) else written


def index_locs(base_url: str, names: Iterable[str], gzip_links: bool) -> list[str]:
    """The one ``<loc>`` rule of the index, served or built: each page file's name in
    the directory the index is served from, on the site's base URL, as its ``.gz``
    sibling with ``SITEMAPKIT_GZIP_LINKS``. A file's name is the last segment of
    its URL (``names.py``), so the app's URLconf serves every one of them."""
    directory = base_url + sitemap_directory()
    suffix = GZIP_SUFFIX if gzip_links else ""
    return [directory + name + suffix for name in names]


def index_entries(pages: Iterable[IndexedPage], origin: Origin) -> list[Entry]:
    """The served index's entries: the pages of the database, numbered from 1."""
    listed = list(pages)
    names = (page_filename(item.section, item.page) for item in listed)
    horizon = Horizon()
    return [
        Entry(loc, index_lastmod(item.lastmod, horizon))
        for loc, item in zip(index_locs(origin.url, names, conf.GZIP_LINKS), listed, strict=True)
    ]


def index_runs(entries: list[Entry]) -> Iterator[Lines]:
    yield entry_lines(entries, sitemap_element)
