"""Each shard (a section's key range, ``planning.py``) written to staging in one
ordered pass over its rows.

The rows are cut into pages of ``page_size`` rows, and each page goes through
the document pipeline. A page also ends before the line that would take it
past ``SITEMAPKIT_MAX_BYTES``; that line starts the next file, so nothing is
lost. The same rows give the same bytes: nothing in a file depends on when,
where or in which process it was written.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from itertools import chain, groupby
from typing import IO, Any

from django.db import connections, transaction

from django_sitemapkit.build.dates import counted_days, counts_days
from django_sitemapkit.build.destinations import Staging
from django_sitemapkit.build.manifest import ManifestFile, encode_stats
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.planning import ShardJob
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.build.robots import Watch
from django_sitemapkit.conf import conf
from django_sitemapkit.documents import fitting, open_document, written
from django_sitemapkit.encoding.compression import gzip_stream, write_gzip_in_thread
from django_sitemapkit.encoding.encoder import Lines
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.ranges import range_chunks, range_stats
from django_sitemapkit.sources.rows import Chunk, close_iterator
from django_sitemapkit.sources.skips import Tally

#: Called with (section, rows of it read so far) while shards are read.
Progress = Callable[[str, int], None]


class Hashed:
    """A file that hashes what is written to it."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.file.write(data)


def write_document(
    staging: Staging, name: str, chunks: Iterable[bytes], gzip: bool, gzip_in_thread: bool = False
) -> tuple[int, str, int | None, str | None]:
    """Write ``chunks`` to the staged copy of ``name`` (and of its ``.gz``, compressed on a
    second thread if ``gzip_in_thread``); return the size and SHA-256 of each."""
    size = 0
    digest = hashlib.sha256()

    def tee(output: IO[bytes]) -> Iterator[bytes]:
        nonlocal size
        for chunk in chunks:
            output.write(chunk)
            digest.update(chunk)
            size += len(chunk)
            yield chunk

    with open(staging.path(name), "wb") as output:
        if not gzip:
            for _ in tee(output):
                pass
            return size, digest.hexdigest(), None, None
        # The gzip sibling is compressed from the very chunks written to the
        # plain file, with the same compressor the views stream .xml.gz with.
        with open(staging.path(name + GZIP_SUFFIX), "wb") as file:
            compressed = Hashed(file)
            if gzip_in_thread:
                write_gzip_in_thread(tee(output), compressed)
            else:
                for block in gzip_stream(tee(output)):
                    compressed.write(block)
            return size, digest.hexdigest(), file.tell(), compressed.digest.hexdigest()


@contextmanager
def one_snapshot(alias: str | None) -> Iterator[None]:
    """One transaction around a shard's stats and its rows, so that the stats recorded
    describe the rows rendered, in ``REPEATABLE READ``: PostgreSQL's (a replica's too),
    MySQL's and MariaDB's InnoDB. Django connects to MySQL in ``READ COMMITTED``
    (its ``isolation_level`` option), where each statement would see the rows
    committed before it: the level is set for this transaction, before its first
    statement (``SET TRANSACTION`` applies to the next one, and is refused in one
    under way).

    On PostgreSQL it also makes the rows stream: outside a transaction, Django
    declares its server-side cursors ``WITH HOLD``, and PostgreSQL then computes
    and stores the whole result before it returns the first row. SQLite gets
    none: a transaction would hold its lock for the whole shard. There the stats
    are read just before the rows, so a change between the two makes the next
    build render the shard again, never miss it. Inside a transaction already
    (Django Tasks' immediate backend runs a worker's job in the coordinator's),
    the isolation is that transaction's. The build only reads in it, so it is
    committed or rolled back to the same effect.
    """
    if alias is None:
        yield
        return
    connection = connections[alias]
    if connection.vendor == "sqlite" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic(using=alias):
        if connection.vendor in ("postgresql", "mysql"):
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def shard_stats(plan: Plan, job: ShardJob) -> dict[str, Any] | None:
    """The stats of the shard's rows as they are read to render it (``None`` for a
    section whose rows are not a queryset: it has none). Every renderer, here or on a
    worker, records these, never the planning query's, which is older."""
    pager = plan.queryset
    if pager is None:
        return None
    low, high = (job.low, job.high) if pager.key is not None else (None, None)
    return encode_stats(range_stats(pager, [low], high)[0])


def reported(
    chunks: Iterator[tuple[int, Chunk]], report: Callable[[], None]
) -> Iterator[tuple[int, Chunk]]:
    try:
        for numbered in chunks:
            yield numbered
            report()
    finally:
        close_iterator(chunks)


def shard_chunks(plan: Plan, job: ShardJob, tally: Tally) -> Iterator[tuple[int, Chunk]]:
    """The shard's rows, cut into pages: a key range, or a section without a key whole."""
    if plan.queryset is not None and plan.key is not None:
        return range_chunks(plan.queryset, job.low, job.high, tally)
    return plan.pager.numbered_chunks(tally)


def render_shard(
    plan: Plan,
    job: ShardJob,
    staging: Staging,
    options: BuildOptions,
    progress: Progress | None = None,
    site: SitemapSite | None = None,
) -> RenderedShard:
    """Write every file of one shard to staging, in one pass over its rows; the files
    are staged as ``.shard-<job>-<n>.xml`` until the build names them. With the
    ``site``, under ``SITEMAPKIT_ROBOTS = "warn"``, the URLs robots.txt disallows are
    found on the way, and named in one warning."""
    started = time.monotonic()
    rendered = RenderedShard(job)
    tally = Tally()
    watch = Watch.of(site)
    days: Counter[str] | None = Counter() if counts_days(plan) else None
    try:
        # The snapshot's end is inside: on MySQL a page's rows are all in the client
        # once its query has run (docs/databases.md), so a lost connection can show
        # only at the commit, and it fails this section like any other read.
        with one_snapshot(plan.database):
            rendered.stats = shard_stats(plan, job)
            chunks = shard_chunks(plan, job, tally)
            if progress is not None:
                chunks = reported(chunks, lambda: progress(plan.section, tally.rows))
            try:
                for index, page_chunks in groupby(chunks, key=lambda p: p[0]):
                    page = job.page + index
                    runs = written(plan, page, (chunk for _, chunk in page_chunks), tally)
                    if watch is not None:
                        runs = watch.watched(runs, page)
                    # Counted as they reach the encoder: a line left out is not.
                    runs = fitting(runs, plan.section, plan.document, tally)
                    if days is not None:
                        runs = counted_days(runs, days)
                    write_page_files(plan, runs, staging, options, rendered)
            finally:
                close_iterator(chunks)
    except BuildError:
        raise
    except Exception as exc:
        raise BuildError(
            f"Section {plan.section!r} failed after {tally.rows:,} rows: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    if watch is not None:
        watch.warn(plan.section)
    rendered.days = None if days is None else dict(days)
    rendered.rows = tally.rows
    rendered.skipped = tally.skipped
    rendered.seconds = time.monotonic() - started
    return rendered


def staged_name(job: ShardJob, number: int) -> str:
    return f".shard-{job.number}-{number}.xml"


def write_page_files(
    plan: Plan,
    runs: Iterator[Lines],
    staging: Staging,
    options: BuildOptions,
    rendered: RenderedShard,
) -> None:
    """The files of one page of rows: one, unless the byte limit cuts it, when the line
    that did not fit starts the next file (``Encoder.overflow``): nothing is lost."""
    limits = {"max_urls": plan.url_limit, "max_bytes": conf.MAX_BYTES}
    document = open_document(runs, plan.document, **limits)
    if document is None:
        rendered.empty_pages += 1
        return
    while document is not None:
        encoder, pending = document
        name = staged_name(rendered.job, len(rendered.files) + 1)
        size, sha256, gzip_size, gzip_sha256 = write_document(
            staging, name, encoder.stream(pending), options.gzip, options.gzip_in_thread
        )
        rendered.files.append(
            ManifestFile(name, encoder.count, encoder.newest, size, gzip_size, sha256, gzip_sha256)
        )
        overflow = encoder.overflow
        if overflow is None:
            return
        if encoder.count < plan.url_limit:
            rendered.byte_cuts += 1
        document = open_document(chain([overflow], pending), plan.document, **limits)


def render_job(
    job: ShardJob, site: SitemapSite, staging: Staging, options: BuildOptions
) -> RenderedShard:
    """A ``--jobs`` worker: one shard, in a process of its own."""
    source = registry.get(job.section, site)
    assert source is not None, job.section
    try:
        return render_shard(compile_plan(source, site), job, staging, options, site=site)
    finally:
        connections.close_all()


def render_shards(
    jobs: list[tuple[Plan, ShardJob]],
    site: SitemapSite,
    staging: Staging,
    options: BuildOptions,
    processes: int,
    progress: Progress | None,
) -> list[RenderedShard]:
    """Every shard of ``jobs``, in order: here, or in ``processes`` forked workers."""
    if processes <= 1 or len(jobs) <= 1:
        rendered: list[RenderedShard] = []
        read: dict[str, int] = {}
        for plan, job in jobs:
            done = read.get(plan.section, 0)
            report = None if progress is None else shard_progress(progress, done)
            rendered.append(render_shard(plan, job, staging, options, report, site))
            read[plan.section] = done + rendered[-1].rows
        return rendered
    # Forked workers must not share the parent's database connections: close
    # them, and each worker opens its own.
    connections.close_all()
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(processes, len(jobs)), mp_context=context) as pool:
        futures = [pool.submit(render_job, job, site, staging, options) for _, job in jobs]
        try:
            return [future.result() for future in futures]
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def shard_progress(progress: Progress, done: int) -> Progress:
    """``progress`` counting the section's rows of the shards rendered before too."""
    return lambda section, rows: progress(section, done + rows)
