"""Each section written to staging in one ordered pass over its rows.

The rows are cut into pages of ``page_size`` rows, the same pages the views
serve, and each page goes through the document pipeline. A page also ends
before the line that would take it past ``SITEMAPKIT_MAX_BYTES``; that line
starts the next file, so nothing is lost, but the file numbers then differ
from the views' (``SectionBuild.matches_views`` says so).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from itertools import chain, groupby
from typing import IO

from django.db import connections, transaction

from django_sitemapkit.build.destinations import Staging
from django_sitemapkit.build.report import BuildOptions, BuiltFile, SectionBuild
from django_sitemapkit.compression import gzip_stream, write_gzip_in_thread
from django_sitemapkit.conf import conf
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.encoder import Encoder, Lines
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import GZIP_SUFFIX, page_filename
from django_sitemapkit.pipeline import first_run, fitting, written
from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import Chunk, close_iterator
from django_sitemapkit.sources.skips import Tally

#: Called with (section, rows read so far) while a section is read.
Progress = Callable[[str, int], None]


def write_document(
    staging: Staging, name: str, chunks: Iterable[bytes], gzip: bool, gzip_in_thread: bool = False
) -> tuple[int, int | None]:
    """Write ``chunks`` to the staged copy of ``name`` (and of its ``.gz``, compressed on a
    second thread if ``gzip_in_thread``); return the sizes."""
    size = 0

    def tee(output: IO[bytes]) -> Iterator[bytes]:
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


def reported(
    chunks: Iterator[tuple[int, Chunk]], report: Callable[[], None]
) -> Iterator[tuple[int, Chunk]]:
    try:
        for numbered in chunks:
            yield numbered
            report()
    finally:
        close_iterator(chunks)


def render_section(
    source: BaseSource,
    site: SitemapSite,
    staging: Staging,
    options: BuildOptions,
    progress: Progress | None = None,
) -> SectionBuild:
    """Write every file of one section to staging, in one pass over its rows."""
    started = time.monotonic()
    plan = compile_plan(source, site)
    build = SectionBuild(plan.section)
    tally = Tally()
    with streaming_transaction(plan.database):
        chunks = plan.pager.numbered_chunks(tally)
        if progress is not None:
            chunks = reported(chunks, lambda: progress(plan.section, tally.rows))
        try:
            for index, page_chunks in groupby(chunks, key=lambda p: p[0]):
                runs = written(plan, index + 1, (chunk for _, chunk in page_chunks), tally)
                write_page_files(
                    plan, fitting(runs, plan.section, plan.document, tally), staging, options, build
                )
        except BuildError:
            raise
        except Exception as exc:
            raise BuildError(
                f"Section {plan.section!r} failed after {tally.rows:,} rows: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        finally:
            close_iterator(chunks)
    build.rows = tally.rows
    build.skipped = tally.skipped
    build.seconds = time.monotonic() - started
    return build


def write_page_files(
    plan: Plan, runs: Iterator[Lines], staging: Staging, options: BuildOptions, build: SectionBuild
) -> None:
    """The files of one page of rows: one, unless the byte limit cuts it."""
    pending = first_run(runs)
    if pending is None:
        build.empty_pages += 1
        return
    while pending is not None:
        number = len(build.files) + 1
        name = page_filename(plan.section, number)
        encoder = Encoder(plan.document, max_urls=plan.url_limit, max_bytes=conf.MAX_BYTES)
        size, gzip_size = write_document(
            staging, name, encoder.stream(pending), options.gzip, options.gzip_in_thread
        )
        build.files.append(BuiltFile(name, encoder.count, size, gzip_size, encoder.newest))
        overflow = encoder.overflow
        if overflow is None:
            return
        if encoder.count < plan.url_limit:
            build.byte_cuts.append(number)
        pending = chain([overflow], pending)


def render_named_section(
    name: str, site: SitemapSite, staging: Staging, options: BuildOptions
) -> SectionBuild:
    """A ``--jobs`` worker: one section, in a process of its own."""
    source = registry.get(name, site)
    assert source is not None, name
    try:
        return render_section(source, site, staging, options)
    finally:
        connections.close_all()


def render_sections(
    sources: list[BaseSource],
    site: SitemapSite,
    staging: Staging,
    options: BuildOptions,
    jobs: int,
    progress: Progress | None,
    done: Callable[[SectionBuild], None],
) -> list[SectionBuild]:
    if jobs <= 1 or len(sources) <= 1:
        built = []
        for source in sources:
            built.append(render_section(source, site, staging, options, progress))
            done(built[-1])
        return built
    # Forked workers must not share the parent's database connections: close
    # them, and each worker opens its own.
    connections.close_all()
    context = multiprocessing.get_context("fork")
    names = [type(source).name for source in sources]
    with ProcessPoolExecutor(max_workers=min(jobs, len(sources)), mp_context=context) as pool:
        futures = [
            pool.submit(render_named_section, name, site, staging, options) for name in names
        ]
        try:
            builds = [future.result() for future in futures]
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    for build in builds:
        done(build)
    return builds
