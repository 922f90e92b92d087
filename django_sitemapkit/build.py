"""Pre-render every sitemap file, then publish the set so no crawler sees a half of it.

Each section is read in one ordered pass over its rows and written in pages
of ``page_size()`` rows, the same pages the views serve. A page also ends
before the entry that would take it past ``SITEMAPKIT_MAX_BYTES``; that entry
starts the next file, so nothing is lost, but the file numbers then differ
from the views' (and ``SectionBuild.matches_views`` says so).

Everything is staged first. Only when every file (and the index) is written,
and validated if asked, are they published: pages, then the index, then the
files the new index no longer names are removed. A failure before that
leaves the previous set exactly as it was.
"""

from __future__ import annotations

import datetime as dt
import logging
import multiprocessing
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from typing import Any

from django.db import connections, transaction

from django_sitemapkit.compression import gzip_stream, write_gzip_in_thread
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.destinations import BuildError, Destination, Staging
from django_sitemapkit.encoder import (
    NAMESPACE,
    SITEMAPINDEX,
    XML_DECLARATION,
    Encoder,
    Entry,
    url_element,
)
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations import (
    GZIP_SUFFIX,
    INDEX_FILENAME,
    PAGE_FILENAME,
    SECTION_NAME,
    LocationPolicy,
    page_filename,
    sitemap_directory,
)
from django_sitemapkit.registry import registry
from django_sitemapkit.sources import BaseSource
from django_sitemapkit.values import format_lastmod

logger = logging.getLogger("django_sitemapkit")

#: Called with (section, rows read so far) while a section is read.
Progress = Callable[[str, int], None]
PROGRESS_EVERY = 1_000


class BuildInterrupted(BuildError):
    """Ctrl-C (or SIGINT) before anything was published."""


@dataclass(frozen=True)
class BuildOptions:
    gzip: bool = True
    gzip_links: bool = False
    validate: bool = False
    #: Compress each page's gzip sibling on a second thread (``--jobs`` 2 or more).
    gzip_in_thread: bool = False


@dataclass(frozen=True)
class BuiltFile:
    name: str
    urls: int
    size: int
    gzip_size: int | None
    #: The newest ``lastmod`` in the file, for its index entry.
    newest: str | None

    def names(self) -> list[str]:
        """The file and its gzip sibling, sibling first."""
        return [self.name + GZIP_SUFFIX, self.name] if self.gzip_size is not None else [self.name]


@dataclass
class SectionBuild:
    section: str
    files: list[BuiltFile] = field(default_factory=list)
    rows: int = 0
    seconds: float = 0.0
    #: Numbers of the files that ended at the byte limit.
    byte_cuts: list[int] = field(default_factory=list)
    #: Pages of rows that had no valid entry, so no file.
    empty_pages: int = 0

    @property
    def urls(self) -> int:
        return sum(f.urls for f in self.files)

    @property
    def skipped(self) -> int:
        return self.rows - self.urls

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def gzip_size(self) -> int | None:
        sizes = [f.gzip_size for f in self.files if f.gzip_size is not None]
        return sum(sizes) if sizes else None

    @property
    def matches_views(self) -> bool:
        """Whether file N holds exactly what the view of page N serves."""
        return not self.byte_cuts and not self.empty_pages


@dataclass
class BuildResult:
    sections: list[SectionBuild]
    index: BuiltFile | None = None
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


class CountingRows:
    """Rows passed through, counted, reporting progress every ``PROGRESS_EVERY`` rows."""

    def __init__(self, rows: Iterator[Any], report: Callable[[int], None] | None) -> None:
        self.rows = rows
        self.report = report
        self.count = 0

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        row = next(self.rows)
        self.count += 1
        if self.report is not None and self.count % PROGRESS_EVERY == 0:
            self.report(self.count)
        return row

    def close(self) -> None:
        close = getattr(self.rows, "close", None)
        if close is not None:
            close()


def write_document(
    staging: Staging, name: str, chunks: Iterable[bytes], gzip: bool, gzip_in_thread: bool = False
) -> tuple[int, int | None]:
    """Write ``chunks`` to the staged copy of ``name`` (and of its ``.gz``, compressed on a
    second thread if ``gzip_in_thread``); return the sizes."""
    size = 0

    def tee(output: Any) -> Iterator[bytes]:
        nonlocal size
        for chunk in chunks:
            output.write(chunk)
            size += len(chunk)
            yield chunk

    with open(staging.path(name), "wb") as output:
        if not gzip:
            for _ in tee(output):
                pass
            return size, None
        # The gzip sibling is compressed from the very chunks written to the
        # plain file, with the same compressor the views stream .xml.gz with.
        with open(staging.path(name + GZIP_SUFFIX), "wb") as compressed:
            if gzip_in_thread:
                write_gzip_in_thread(tee(output), compressed)
            else:
                for block in gzip_stream(tee(output)):
                    compressed.write(block)
            return size, compressed.tell()


@contextmanager
def streaming_transaction(alias: str | None) -> Iterator[None]:
    """A transaction around a section's rows, on PostgreSQL in autocommit mode.

    Outside a transaction, Django declares its server-side cursors ``WITH
    HOLD``, and PostgreSQL then computes and stores the whole result (the
    whole section) before it returns the first row. Inside one, the cursor is
    ``WITHOUT HOLD`` and rows stream from the first fetch. The build only
    reads in it, so it is rolled back or committed to the same effect.
    """
    if alias is None:
        yield
        return
    connection = connections[alias]
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic(using=alias):
        yield


def render_section(
    source: BaseSource,
    staging: Staging,
    options: BuildOptions,
    progress: Progress | None = None,
) -> SectionBuild:
    """Write every file of one section to staging, in one pass over its rows."""
    started = time.monotonic()
    build = SectionBuild(source.name)
    report = None if progress is None else (lambda rows: progress(source.name, rows))
    with streaming_transaction(source.database()):
        rows = CountingRows(source.all_rows(), report)
        try:
            write_pages(source, rows, staging, options, build)
        except BuildError:
            raise
        except Exception as exc:
            raise BuildError(
                f"Section {source.name!r} failed after {rows.count:,} rows: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        finally:
            rows.close()
    build.rows = rows.count
    build.seconds = time.monotonic() - started
    return build


def write_pages(
    source: BaseSource,
    rows: CountingRows,
    staging: Staging,
    options: BuildOptions,
    build: SectionBuild,
) -> None:
    policy = LocationPolicy.from_settings()
    page_size = source.page_size()
    while True:
        read_before = rows.count
        # One view page: the next page_size rows, whatever their validity.
        entries = fitting(source, source.entries(islice(rows, page_size), policy))
        first = next(entries, None)
        if first is None:
            if rows.count == read_before:
                return
            build.empty_pages += 1
            continue
        pending: Entry | None = first
        while pending is not None:
            pending = write_page(source, chain([pending], entries), staging, options, build)


def fitting(source: BaseSource, entries: Iterator[Entry]) -> Iterator[Entry]:
    """Leave out (log, or raise in strict mode) an entry no document could hold.

    Only a ``SITEMAPKIT_MAX_BYTES`` far below the default makes this possible;
    the exact size is computed only for entries that might not fit.
    """
    document = source.urlset()
    room = conf.MAX_BYTES - len(document.opening) - len(document.closing)
    for entry in entries:
        # Escaping grows a character to at most 6 (&quot;); tags and the
        # other values take well under 200 bytes. Extension elements have no
        # such bound: their size is always measured.
        if entry.extras is not None or len(entry.loc) * 6 + 200 > room:
            size = len(url_element(entry).encode())
            if size > room:
                message = (
                    f"Skipped {entry.loc!r} of source {source.name!r}: its <url> takes "
                    f"{size:,} bytes, more than a document of SITEMAPKIT_MAX_BYTES "
                    f"({conf.MAX_BYTES:,}) has room for"
                )
                if conf.STRICT:
                    raise InvalidEntry(message)
                logger.warning("%s.", message)
                continue
        yield entry


def write_page(
    source: BaseSource,
    entries: Iterator[Entry],
    staging: Staging,
    options: BuildOptions,
    build: SectionBuild,
) -> Entry | None:
    """Write the next file; return the entry that did not fit in it, if any."""
    number = len(build.files) + 1
    name = page_filename(source.name, number)
    encoder = Encoder(source.urlset(), max_urls=source.url_limit(), max_bytes=conf.MAX_BYTES)
    size, gzip_size = write_document(
        staging, name, encoder.stream(entries), options.gzip, options.gzip_in_thread
    )
    if encoder.count == 0:
        # fitting() left out every entry too big for a document of its own;
        # this guards the loop all the same.
        raise BuildError(
            f"An entry of section {source.name!r} does not fit in SITEMAPKIT_MAX_BYTES "
            f"({conf.MAX_BYTES:,} bytes) on its own; raise the setting."
        )
    build.files.append(BuiltFile(name, encoder.count, size, gzip_size, encoder.newest))
    if encoder.overflow is not None:
        build.byte_cuts.append(number)
    return encoder.overflow


def render_named_section(name: str, staging: Staging, options: BuildOptions) -> SectionBuild:
    """A ``--jobs`` worker: one section, in a process of its own."""
    source = registry.get(name)
    assert source is not None, name
    try:
        return render_section(source, staging, options)
    finally:
        connections.close_all()


def render_sections(
    sources: list[BaseSource],
    staging: Staging,
    options: BuildOptions,
    jobs: int,
    progress: Progress | None,
    done: Callable[[SectionBuild], None],
) -> list[SectionBuild]:
    if jobs <= 1 or len(sources) <= 1:
        builds = []
        for source in sources:
            builds.append(render_section(source, staging, options, progress))
            done(builds[-1])
        return builds
    # Forked workers must not share the parent's database connections: close
    # them, and each worker opens its own.
    connections.close_all()
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(jobs, len(sources)), mp_context=context) as pool:
        futures = [
            pool.submit(render_named_section, source.name, staging, options) for source in sources
        ]
        try:
            builds = [future.result() for future in futures]
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    for build in builds:
        done(build)
    return builds


def render_index(staging: Staging, entries: list[Entry], options: BuildOptions) -> BuiltFile:
    if len(entries) > MAX_URLS:
        raise BuildError(
            f"The build has {len(entries):,} files, more than the {MAX_URLS:,} one index may "
            "list; raise SITEMAPKIT_LIMIT or the sources' limit so fewer files are needed."
        )
    encoder = Encoder(SITEMAPINDEX, max_bytes=conf.MAX_BYTES)
    size, gzip_size = write_document(staging, INDEX_FILENAME, encoder.stream(entries), options.gzip)
    if encoder.cut:
        raise BuildError(
            f"The index of {len(entries):,} files passes SITEMAPKIT_MAX_BYTES "
            f"({conf.MAX_BYTES:,} bytes); raise the setting or the sources' limit."
        )
    return BuiltFile(INDEX_FILENAME, encoder.count, size, gzip_size, encoder.newest)


def index_entries(
    builds: list[SectionBuild], kept: list[Entry], options: BuildOptions
) -> list[Entry]:
    """One entry per file built, in registry order, with ``kept`` entries of other sections."""
    base = LocationPolicy.from_settings().origin.url + sitemap_directory()
    suffix = GZIP_SUFFIX if options.gzip_links else ""
    built = {
        build.section: [Entry(base + f.name + suffix, f.newest) for f in build.files]
        for build in builds
    }
    others: dict[str | None, list[Entry]] = {}
    for entry in kept:
        section = section_of(entry.loc)
        if section is not None:
            # Rebuilt on today's base URL and link style, like the new entries.
            name = entry.loc.rsplit("/", 1)[-1].removesuffix(GZIP_SUFFIX)
            entry = Entry(base + name + suffix, entry.lastmod)
        others.setdefault(section, []).append(entry)
    entries: list[Entry] = []
    for source in registry.sections():
        kept_for_section = others.pop(source.name, [])
        entries += built.pop(source.name) if source.name in built else kept_for_section
    for remaining in others.values():
        entries += remaining
    return entries


def section_of(url: str) -> str | None:
    name = url.rsplit("/", 1)[-1]
    if name.endswith(GZIP_SUFFIX):
        name = name[: -len(GZIP_SUFFIX)]
    match = PAGE_FILENAME.match(name)
    return None if match is None else match["section"]


def existing_index_entries(destination: Destination) -> list[Entry]:
    """The entries of the published index, which a one-section build keeps for the others."""
    content = destination.read(INDEX_FILENAME)
    if content is None:
        raise BuildError(
            f"There is no {INDEX_FILENAME} in {destination.label} to update; run "
            "build_sitemaps without --section once first."
        )
    # The index may have been edited, or planted, since the last build: only
    # what a build writes is taken from it. No DTD is read at all (entity
    # expansion, external entities), only the names of our own page files, and
    # only a lastmod of the shape the encoder writes.
    # The declaration is checked byte for byte: in another encoding (UTF-16)
    # a DOCTYPE would not show as these bytes.
    if not content.startswith(XML_DECLARATION) or b"<!DOCTYPE" in content:
        raise BuildError(
            f"{INDEX_FILENAME} in {destination.label} is not an index a build writes (its "
            "first line differs, or it has a DOCTYPE); run build_sitemaps without --section "
            "to replace it."
        )
    try:
        root = ElementTree.fromstring(content)
    except ElementTree.ParseError as exc:
        raise BuildError(
            f"{INDEX_FILENAME} in {destination.label} is not valid XML: {exc}."
        ) from exc
    namespace = {"sm": NAMESPACE}
    entries = []
    for item in root.iterfind("sm:sitemap", namespace):
        loc = (item.findtext("sm:loc", "", namespace) or "").strip()
        lastmod = item.findtext("sm:lastmod", None, namespace)
        if section_of(loc) is None:
            logger.warning(
                "Left out %r of %s in %s: it names no sitemap file of a build.",
                loc[:200],
                INDEX_FILENAME,
                destination.label,
            )
            continue
        entries.append(Entry(loc, lastmod if is_written_lastmod(lastmod) else None))
    return entries


def is_written_lastmod(text: str | None) -> bool:
    """Whether ``text`` is a lastmod exactly as ``format_lastmod()`` writes it (which
    also makes it a real date: no 2024-13-45)."""
    if text is None:
        return False
    try:
        value = dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)
        if isinstance(value, dt.datetime) and value.tzinfo is None:
            return False  # the encoder writes every datetime with its offset
        return format_lastmod(value) == text
    except (ValueError, InvalidEntry):
        return False


def staged_files(builds: list[SectionBuild], index: BuiltFile) -> list[BuiltFile]:
    return [f for build in builds for f in build.files] + [index]


def publish(
    destination: Destination,
    builds: list[SectionBuild],
    index: BuiltFile,
    partial: bool,
    result: BuildResult,
) -> None:
    """Pages, then the index, then the files the new index no longer names: at no moment
    does a published index name a file that is not there."""
    written: set[str] = set()
    for built in staged_files(builds, index):
        for name in built.names():
            written.add(name)
            (result.replaced if destination.publish(name) else result.unchanged).append(name)
    rebuilt = {build.section for build in builds} if partial else None
    for name in stale_names(destination, written, rebuilt):
        destination.remove(name)
        result.removed.append(name)


def is_index(name: str) -> bool:
    return name in (INDEX_FILENAME, INDEX_FILENAME + GZIP_SUFFIX)


def build(
    destination: Destination,
    sources: list[BaseSource],
    options: BuildOptions,
    *,
    partial: bool = False,
    jobs: int = 1,
    progress: Progress | None = None,
    done: Callable[[SectionBuild], None] = lambda build: None,
) -> BuildResult:
    """Build ``sources`` into ``destination``; ``partial`` keeps the other sections' files.

    ``jobs`` of 2 or more builds sections in that many processes, and
    compresses each gzip sibling on a thread of its own, so even one large
    section keeps two cores busy.
    """
    options = replace(options, gzip_in_thread=options.gzip_in_thread or jobs > 1)
    refuse_unsafe_names(sources)
    with destination.lock():
        try:
            kept = existing_index_entries(destination) if partial else []
            builds = render_sections(sources, destination.staging, options, jobs, progress, done)
            result = BuildResult(builds)
            entries = index_entries(builds, kept, options)
            if not entries:
                destination.discard()
                return result
            result.index = render_index(destination.staging, entries, options)
            if options.validate:
                from django_sitemapkit.validation import validate_staged

                validate_staged(destination.staging, staged_files(builds, result.index))
        except BaseException as exc:
            destination.discard()
            untouched = f"Nothing was published: the files in {destination.label} are as they were."
            if isinstance(exc, KeyboardInterrupt):
                raise BuildInterrupted(f"Interrupted. {untouched}") from exc
            if isinstance(exc, BuildError):
                reason = str(exc)
            elif isinstance(exc, OSError):
                reason = f"Cannot write to {destination.label}: {describe_os_error(exc)}."
            elif isinstance(exc, Exception):
                reason = f"{type(exc).__name__}: {exc}"
            else:
                raise
            raise BuildError(f"{reason} {untouched}") from exc
        try:
            publish(destination, builds, result.index, partial, result)
        finally:
            destination.discard()
        return result


def refuse_unsafe_names(sources: list[BaseSource]) -> None:
    """The system checks refuse these names (sitemapkit.E007), but a build may run
    without them (``--skip-checks``, ``call_command()``): a name such as
    ``"x/../../y"`` must never become part of a path."""
    for source in sources:
        if not isinstance(source.name, str) or not SECTION_NAME.fullmatch(source.name):
            cls = type(source)
            raise BuildError(
                f"Sitemap source {cls.__module__}.{cls.__qualname__} has the section name "
                f"{source.name!r}, which cannot appear safely in a file name (sitemapkit.E007); "
                "set name to 1 to 64 ASCII letters, digits, '-' or '_', starting with a letter "
                "or digit."
            )


def describe_os_error(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return f"{text} ({exc.filename})" if exc.filename else text


def planned_names(source: BaseSource, options: BuildOptions) -> list[str]:
    """The files a build would write for ``source`` if no page reaches the byte limit."""
    names = []
    for page in range(1, source.page_count() + 1):
        name = page_filename(source.name, page)
        names += [name, name + GZIP_SUFFIX] if options.gzip else [name]
    return names


def stale_names(
    destination: Destination, keep: Iterable[str], sections: set[str] | None
) -> list[str]:
    """The sitemap files not in ``keep``: of ``sections`` only (and the index), or all."""
    keep = set(keep)
    return [
        name
        for name in destination.names()
        if name not in keep and (sections is None or section_of(name) in sections or is_index(name))
    ]
