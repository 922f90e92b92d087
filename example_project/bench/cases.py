"""What one child process of ``manage.py benchmark_sitemaps`` does: seed the
table, or run one case and measure it (times, RSS or tracemalloc).

Every case produces the sitemap of the same ``bench.Page`` rows, each in its
own way; the parent process only starts the children and prints their figures.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import hashlib
import os
import re
import resource
import shutil
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.test import RequestFactory
from django.urls import reverse
from django_sitemapkit import SitemapSource, register, registry

from bench.models import BenchRow, IndexPage, Page

# The protocol's cap, and what both django.contrib.sitemaps and this package
# put on one page by default.
PAGE_MAX = 50_000
# Rows per database round trip in the floors: the package's default CHUNK_SIZE.
ROW_CHUNK = 2_000
# The floors hand out the document in pieces of about this size, as the
# package's encoder does, so a streaming response has the same shape.
CHUNK_BYTES = 64 * 1024
# Rows per INSERT ... SELECT on SQLite: a million rows is about one second.
SEED_BATCH = 1_000_000
# Rows compared with slug_for()/updated_at_for() after a load (see check_sample()).
SEED_SAMPLE = 200

# Deterministic lastmods spread over four years from this instant.
EPOCH = dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc)
SPAN_MICROSECONDS = 4 * 365 * 24 * 3600 * 1_000_000
# An odd multiplier (Knuth's multiplicative hash) scatters consecutive rows
# over the whole span, so pk order and time order differ as on a real site.
SCATTER = 2_654_435_761

URLSET_OPENING = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)
URLSET_CLOSING = "</urlset>\n"
URL_TAG = b"<url>"
# What the index cases count instead: one per page the index lists.
SITEMAP_TAG = b"<sitemap>"
# A location as every case writes it: escaped, so never with a "<" inside.
LOC = re.compile(rb"<loc>([^<]*)</loc>")
LOC_OPENING = b"<loc>"


# -- the rows ----------------------------------------------------------------------


def slug_for(number: int) -> str:
    return f"page-{number:07d}"


def updated_at_for(number: int) -> dt.datetime:
    """Aware UTC, with microseconds, so every writer has to drop them."""
    offset = (number * SCATTER) % SPAN_MICROSECONDS
    return EPOCH + dt.timedelta(microseconds=offset)


@dataclass
class SeedReport:
    rows: int
    action: str  # "reused", "appended", "trimmed" or "seeded"
    seconds: float


def ensure_rows(wanted: int, reseed: bool, model: type[BenchRow] = Page) -> SeedReport:
    """Make ``model``'s table hold exactly rows 1..``wanted``, doing as little as possible.

    Row ``n`` is a pure function of ``n`` (id ``n``, ``slug_for(n)``,
    ``updated_at_for(n)``), so a table that is an intact prefix of the series
    can be extended or trimmed instead of rebuilt.
    """
    started = time.perf_counter()
    objects = model._default_manager
    with unsynchronized_writes(), transaction.atomic():
        count = objects.count()
        intact = not reseed and is_intact_prefix(model, count)
        if intact and count == wanted:
            return SeedReport(wanted, "reused", time.perf_counter() - started)
        if intact and count > wanted:
            # One DELETE: nothing refers to these rows and no signal is connected.
            objects.filter(pk__gt=wanted).delete()
            action = "trimmed"
        else:
            first = count + 1 if intact else 1
            if not intact:
                delete_all_rows(model)
            insert_rows(model, first, wanted)
            check_sample(model, first, wanted)
            action = "appended" if intact and count else "seeded"
        reset_sequence(model)
    refresh_statistics(model)
    return SeedReport(wanted, action, time.perf_counter() - started)


@contextlib.contextmanager
def unsynchronized_writes() -> Iterator[None]:
    """SQLite: no fsync() while the table is loaded (``PRAGMA synchronous = OFF``).

    The load is one transaction either way; a power cut during it could
    corrupt ``benchmark.sqlite3``, which holds nothing that ``--reseed`` (or
    deleting the file) cannot recreate. The journal stays as it is: a memory
    journal would hold every page of a large trim in RAM. The pragma cannot be
    changed inside a transaction, hence outside ``transaction.atomic()``.
    """
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        before = int(cursor.fetchone()[0])
        cursor.execute("PRAGMA synchronous = OFF")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA synchronous = {before:d}")


def is_intact_prefix(model: type[BenchRow], count: int) -> bool:
    """Whether the table holds rows 1..``count`` of the series, judging by its ends."""
    if count == 0:
        return True
    ends = model._default_manager.filter(pk__in=(1, count)).values_list("pk", "slug", "updated_at")
    expected = {(n, slug_for(n), updated_at_for(n)) for n in (1, count)}
    return set(ends) == expected


def check_sample(model: type[BenchRow], first: int, last: int) -> None:
    """Compare rows spread over ``first``..``last`` with the series, as the ORM reads them.

    The SQLite loader computes the rows in SQL, a second definition of the
    series: if the two ever disagreed, every later run would take the table
    for intact (it only looks at its ends) and measure other rows.
    """
    if first > last:
        return
    step = max(1, (last - first) // SEED_SAMPLE)
    numbers = {*range(first, last + 1, step), last}
    found = set(
        model._default_manager.filter(pk__in=numbers).values_list("pk", "slug", "updated_at")
    )
    expected = {(n, slug_for(n), updated_at_for(n)) for n in numbers}
    if found != expected:
        wrong = sorted(expected - found)[:3]
        raise RuntimeError(f"The rows just inserted differ from the series, e.g. {wrong}.")


def delete_all_rows(model: type[BenchRow]) -> None:
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        # One statement, not the ORM's collector: nothing refers to these rows.
        cursor.execute(f"DELETE FROM {table}")


def insert_rows(model: type[BenchRow], first: int, last: int) -> None:
    if first > last:
        return
    if connection.vendor == "postgresql":
        copy_rows(model, first, last)
    else:
        select_rows(model, first, last)


def select_rows(model: type[BenchRow], first: int, last: int) -> None:
    """SQLite: ``INSERT ... SELECT``, the rows computed by SQLite itself.

    A million rows took about a second on a 2-core machine, where the
    ``executemany()`` of tuples made in Python that it replaces took eight
    (most of them making the tuples). The SQL is the series of ``slug_for()``
    and ``updated_at_for()`` as Django stores an aware datetime on SQLite
    (naive UTC text, ``str()`` of the datetime: no fraction when the
    microseconds are 0); ``check_sample()`` holds it to that.
    """
    table = connection.ops.quote_name(model._meta.db_table)
    epoch = int(EPOCH.timestamp())
    # "%%": Django's SQLite cursor turns "%s" into "?" and "%%" into "%".
    sql = f"""
        WITH RECURSIVE numbers(n) AS (
            SELECT %s UNION ALL SELECT n + 1 FROM numbers WHERE n < %s
        ), offsets(n, microseconds) AS (
            SELECT n, (n * %s) %% %s FROM numbers
        )
        INSERT INTO {table} (id, slug, updated_at)
        SELECT
            n,
            printf('page-%%07d', n),
            datetime({epoch:d} + microseconds / 1000000, 'unixepoch')
            || CASE WHEN microseconds %% 1000000 = 0 THEN ''
               ELSE printf('.%%06d', microseconds %% 1000000) END
        FROM offsets
    """
    with connection.cursor() as cursor:
        for start in range(first, last + 1, SEED_BATCH):
            stop = min(start + SEED_BATCH - 1, last)
            cursor.execute(sql, [start, stop, SCATTER, SPAN_MICROSECONDS])


def copy_rows(model: type[BenchRow], first: int, last: int) -> None:
    """PostgreSQL: COPY, many times faster than INSERTs for a million rows."""
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        raw: Any = cursor.cursor  # the psycopg cursor under Django's wrapper
        with raw.copy(f"COPY {table} (id, slug, updated_at) FROM STDIN") as copy:
            for n in range(first, last + 1):
                copy.write_row((n, slug_for(n), updated_at_for(n)))


def reset_sequence(model: type[BenchRow]) -> None:
    # The ids were given explicitly; PostgreSQL's sequence must move past them
    # or the next ORM insert would collide. (SQLite needs nothing.)
    statements = connection.ops.sequence_reset_sql(no_style(), [model])
    if statements:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)


def refresh_statistics(model: type[BenchRow]) -> None:
    """Fresh planner statistics (and, on PostgreSQL, a vacuumed table) after a load."""
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Sets the visibility map and hint bits now, so that the first
            # measured read does not pay for them.
            cursor.execute(f"VACUUM ANALYZE {table}")
        else:
            cursor.execute(f"ANALYZE {table}")


def database_version() -> str:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            return f"PostgreSQL {cursor.fetchone()[0]}"
    import sqlite3

    return f"SQLite {sqlite3.sqlite_version}"


def blog_rows() -> int:
    """Posts and categories in this database: ``build_sitemaps`` would build them too."""
    from blog.models import Category, Post

    return Post.objects.count() + Category.objects.count()


# -- the sitemap sections ----------------------------------------------------------


class BenchSource(SitemapSource):
    """The benchmark's section; registered at run time, in a benchmark process only."""

    name = "bench"
    queryset = Page.objects.all()
    url_name = "bench-page"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    changefreq = "daily"
    priority = 0.5


class RegexBenchSource(BenchSource):
    """The same rows and locations through a ``re_path()`` (see bench/urls.py).

    The package compiles only a ``path()`` pattern into a URL template; for
    this one it must call ``reverse()`` for every row.
    """

    name = "benchre"
    url_name = "bench-page-re"


class IndexBenchSource(BenchSource):
    """``bench`` over the ``--index-rows`` table, for the index cases."""

    queryset = IndexPage.objects.all()  # type: ignore[assignment]  # the same columns


def register_bench_source(page_size: int, source: type[BenchSource] = BenchSource) -> None:
    """Register ``source`` with ``page_size`` URLs a page (a smaller ``--rows`` run)."""
    if registry.get(source.name) is not None:
        return
    if page_size >= PAGE_MAX:
        register(source)
    else:
        register(type(source.__name__, (source,), {"limit": page_size}))


def contrib_sitemap(page_size: int, model: type[BenchRow] = Page) -> Any:
    """Django's own sitemap of the same rows, as its documentation writes it."""
    from django.contrib.sitemaps import GenericSitemap

    sitemap = GenericSitemap(
        {"queryset": model._default_manager.order_by("pk"), "date_field": "updated_at"},
        priority=0.5,
        changefreq="daily",
    )
    sitemap.limit = page_size
    return sitemap


def contrib_index_sitemaps(page_size: int) -> dict[str, Any]:
    """The ``sitemaps`` of the ``contrib-index`` case: ``contrib``'s, over the index table."""
    return {"bench": contrib_sitemap(page_size, IndexPage)}


def base_url() -> str:
    value: str = settings.SITEMAPKIT_BASE_URL
    return value.rstrip("/")


def make_request(
    path: str, query: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> HttpRequest:
    """A GET on the base URL's host and scheme.

    django.contrib.sitemaps takes its domain from the request (RequestSite,
    as the sites framework is not installed), so with the base URL's host and
    port both sitemaps write the same locations.
    """
    parts = urlsplit(base_url())
    return RequestFactory().get(
        path,
        query or {},
        headers=headers,
        HTTP_HOST=parts.netloc,
        secure=parts.scheme == "https",
    )


# -- measuring one document --------------------------------------------------------


@dataclass
class Outcome:
    """One run of a case. ``urls``, ``digest`` and ``locs_digest`` are only computed in
    checked runs."""

    seconds: float
    bytes: int
    ttfb: float | None = None
    urls: int | None = None
    digest: str | None = None
    # The sorted <loc> values: equal for two documents that list the same
    # locations, whatever their order, whitespace or other elements.
    locs_digest: str | None = None
    files: int | None = None
    gzip_bytes: int | None = None


class Sink:
    """Consumes a document chunk by chunk, as a WSGI server would, keeping only counts."""

    def __init__(self, started: float, check: bool, tag: bytes = URL_TAG) -> None:
        self.started = started
        self.check = check
        self.tag = tag
        self.size = 0
        self.first_byte: float | None = None
        self.urls = 0
        self.hash = hashlib.sha256()
        # The end of the previous chunk, so a "<url>" split across two chunks counts.
        self.tail = b""
        self.locs: list[bytes] = []
        # From the last "<loc>" not closed yet, for a location split across chunks.
        self.pending = b""

    def take(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self.first_byte is None:
            self.first_byte = time.perf_counter() - self.started
        self.size += len(chunk)
        if self.check:
            self.hash.update(chunk)
            joined = self.tail + chunk
            self.urls += joined.count(self.tag)
            self.tail = joined[-(len(self.tag) - 1) :]
            self.take_locs(chunk)

    def take_locs(self, chunk: bytes) -> None:
        text = self.pending + chunk
        end = 0
        for match in LOC.finditer(text):
            self.locs.append(match.group(1))
            end = match.end()
        rest = text[end:]
        opened = rest.rfind(LOC_OPENING)
        self.pending = rest[opened:] if opened >= 0 else rest[-(len(LOC_OPENING) - 1) :]

    def locs_digest(self) -> str:
        return hashlib.sha256(b"\n".join(sorted(self.locs))).hexdigest()

    def outcome(self, seconds: float) -> Outcome:
        return Outcome(
            seconds=seconds,
            bytes=self.size,
            ttfb=self.first_byte,
            urls=self.urls if self.check else None,
            digest=self.hash.hexdigest() if self.check else None,
            locs_digest=self.locs_digest() if self.check else None,
        )


def streamed(response: HttpResponseBase) -> StreamingHttpResponse:
    if response.status_code != 200 or not isinstance(response, StreamingHttpResponse):
        raise RuntimeError(f"The sitemap view answered {response.status_code}, not a stream.")
    return response


# -- the cases ---------------------------------------------------------------------


class Case(Protocol):
    def setup(self) -> None:
        """What any process would have done before its first request."""

    def run(self, check: bool) -> Outcome: ...


def teardown(case: Case) -> None:
    """Undo what a case's ``setup()`` registered or wrote, if it has a ``teardown()``."""
    undo: Callable[[], None] | None = getattr(case, "teardown", None)
    if undo is not None:
        undo()


class ContribServe:
    """django.contrib.sitemaps' ``sitemap`` view, rendered to its full content.

    ``sitemap`` makes what its ``sitemaps`` dict holds (a ``Sitemap`` instance or
    class) from the page size: ``contrib``'s GenericSitemap by default.
    """

    def __init__(self, page_size: int, sitemap: Callable[[int], Any] | None = None) -> None:
        self.page_size = page_size
        self.sitemap = sitemap or contrib_sitemap

    def setup(self) -> None:
        from django.contrib.sitemaps import views

        self.view = views.sitemap
        self.sitemaps = {"bench": self.sitemap(self.page_size)}
        self.request = make_request("/sitemap-bench.xml", {"p": "1"})
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response: Any = self.view(self.request, sitemaps=self.sitemaps, section="bench")
        response.render()
        content: bytes = response.content
        seconds = time.perf_counter() - started
        sink = Sink(started, check)
        sink.take(content)
        outcome = sink.outcome(seconds)
        # Not streamed: the first byte leaves when the whole document is ready.
        outcome.ttfb = seconds
        return outcome


class OursServe:
    """This package's page view, streamed to the end and closed."""

    def __init__(self, page: int, page_size: int, source: type[BenchSource] = BenchSource) -> None:
        self.page = page
        self.page_size = page_size
        self.source = source

    def setup(self) -> None:
        from django_sitemapkit import views

        register_bench_source(self.page_size, self.source)
        self.view = views.page
        self.section = self.source.name
        path = reverse("sitemapkit:page", kwargs={"section": self.section, "page": self.page})
        self.request = make_request(path)
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = streamed(self.view(self.request, section=self.section, page=self.page))
        return consume(response, Sink(started, check))


def consume(response: StreamingHttpResponse, sink: Sink) -> Outcome:
    """Read a streamed response to its end and close it, as a WSGI server would."""
    try:
        for chunk in response.streaming_content:
            sink.take(chunk)
    finally:
        response.close()
    return sink.outcome(time.perf_counter() - sink.started)


class OursIndex:
    """This package's index view, ``GET /sitemap.xml``, from the database.

    With ``conditional``, the GET carries the ``If-None-Match`` and
    ``If-Modified-Since`` of a full response made in ``setup()``, and must be
    answered 304: what a crawler that already has the index costs.
    """

    def __init__(self, conditional: bool) -> None:
        self.conditional = conditional

    def setup(self) -> None:
        from django_sitemapkit import views

        register_bench_source(PAGE_MAX, IndexBenchSource)
        self.view = views.index
        path = reverse("sitemapkit:index")
        self.request = make_request(path)
        warm_process()
        if self.conditional:
            full = streamed(self.view(self.request))
            full.close()  # only its validators are needed
            if not full.has_header("ETag") or not full.has_header("Last-Modified"):
                raise RuntimeError("The sitemap index has no ETag or no Last-Modified.")
            validators = {
                "If-None-Match": full["ETag"],
                "If-Modified-Since": full["Last-Modified"],
            }
            self.request = make_request(path, headers=validators)

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = self.view(self.request)
        if not self.conditional:
            return consume(streamed(response), Sink(started, check, SITEMAP_TAG))
        seconds = time.perf_counter() - started
        if response.status_code != 304:
            raise RuntimeError(
                f"The conditional GET of the index answered {response.status_code}, not 304."
            )
        sink = Sink(started, check, SITEMAP_TAG)
        sink.take(response.content)  # none: a 304 has no body
        outcome = sink.outcome(seconds)
        outcome.ttfb = seconds
        return outcome


class ContribIndex:
    """django.contrib.sitemaps' ``index`` view over ``contrib``'s sitemap of the index
    table, 50,000 URLs a page; its pages are ``?p=N`` of a ``sitemap`` view."""

    def setup(self) -> None:
        from django.contrib.sitemaps import views

        self.view = views.index
        self.sitemaps = contrib_index_sitemaps(PAGE_MAX)
        self.request = make_request("/sitemap.xml")
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response: Any = self.view(
            self.request, sitemaps=self.sitemaps, sitemap_url_name="bench-contrib-sitemap"
        )
        response.render()
        content: bytes = response.content
        seconds = time.perf_counter() - started
        sink = Sink(started, check, SITEMAP_TAG)
        sink.take(content)
        outcome = sink.outcome(seconds)
        # Not streamed: the first byte leaves when the whole document is ready.
        outcome.ttfb = seconds
        return outcome


def iso_lastmod(value: dt.datetime) -> str:
    """W3C form of an aware datetime, to the second, in UTC."""
    return value.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def sqlite_text_lastmod(text: str) -> str:
    # Django stores "YYYY-MM-DD hh:mm:ss[.ffffff]", in UTC, on SQLite.
    return text[:10] + "T" + text[11:19] + "+00:00"


def urlset_chunks(
    rows: Iterable[tuple[str, Any]], lastmod: Callable[[Any], str]
) -> Iterator[bytes]:
    """The floors' writer: one f-string per row, joined into ~64 KiB chunks.

    The bytes are meant to be exactly those of the package's page view.
    """
    prefix = f"<url><loc>{base_url()}/bench/"
    suffix = "<changefreq>daily</changefreq><priority>0.5</priority></url>\n"
    parts = [URLSET_OPENING]
    size = len(URLSET_OPENING)
    for slug, updated_at in rows:
        line = f"{prefix}{xml_escape(slug)}/</loc><lastmod>{lastmod(updated_at)}</lastmod>{suffix}"
        parts.append(line)
        size += len(line)  # every character is ASCII, so characters are bytes
        if size >= CHUNK_BYTES:
            yield "".join(parts).encode()
            parts, size = [], 0
    parts.append(URLSET_CLOSING)
    yield "".join(parts).encode()


def xml_escape(text: str) -> str:
    # A slug never holds one of these, but a correct writer checks anyway.
    if "&" in text or "<" in text or ">" in text:
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def orm_rows(offset: int, size: int | None) -> Iterator[tuple[str, Any]]:
    queryset = Page.objects.order_by("pk").values_list("slug", "updated_at")
    stop = None if size is None else offset + size
    rows: Iterator[tuple[str, Any]] = queryset[offset:stop].iterator(chunk_size=ROW_CHUNK)
    return rows


class OrmFloor:
    """The least the ORM can do: a values_list() iterator and an f-string per row."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size

    def setup(self) -> None:
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        sink = Sink(started, check)
        for chunk in urlset_chunks(orm_rows(0, self.page_size), iso_lastmod):
            sink.take(chunk)
        return sink.outcome(time.perf_counter() - started)


class CursorFloor:
    """Below the ORM: hand-written SQL on the DB-API cursor, no model layer at all."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size

    def setup(self) -> None:
        warm_process()
        self.sql, self.lastmod = cursor_query(connection.vendor)

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        sink = Sink(started, check)
        with connection.cursor() as cursor:
            native_timestamptz(cursor)
            cursor.execute(self.sql, [self.page_size])
            for chunk in urlset_chunks(fetched(cursor), self.lastmod):
                sink.take(chunk)
        return sink.outcome(time.perf_counter() - started)


def cursor_query(vendor: str) -> tuple[str, Callable[[Any], str]]:
    """The cursor floor's SQL, and how it turns the ``updated_at`` it gets into a lastmod."""
    if vendor == "postgresql":
        # psycopg hands back aware datetimes (see native_timestamptz()).
        return "SELECT slug, updated_at FROM bench_page ORDER BY id LIMIT %s", iso_lastmod
    # Django's SQLite connection parses every column declared "datetime" into a
    # datetime object; a CAST has no declared type, so the stored text comes
    # back as it is, and slicing it beats parsing it only to print it again.
    return (
        "SELECT slug, CAST(updated_at AS TEXT) FROM bench_page ORDER BY id LIMIT %s",
        sqlite_text_lastmod,
    )


def native_timestamptz(cursor: Any) -> None:
    """On PostgreSQL, psycopg's own (compiled) timestamptz loader, not Django's.

    Django registers a subclass of psycopg's Python loader on every
    connection, several times slower per value; a floor takes the fastest.
    """
    if connection.vendor != "postgresql":
        return
    from psycopg import adapters, postgres, pq

    oid = postgres.types["timestamptz"].oid
    cursor.cursor.adapters.register_loader(oid, adapters.get_loader(oid, pq.Format.TEXT))


def fetched(cursor: Any) -> Iterator[tuple[str, Any]]:
    while rows := cursor.fetchmany(ROW_CHUNK):
        yield from rows


@dataclass
class BuiltFiles:
    files: int = 0
    xml_bytes: int = 0
    gzip_bytes: int = 0
    urls: int = 0


def built_files(directory: Path, count_urls: bool) -> BuiltFiles:
    """What a build left in ``directory``: files, .xml and .xml.gz bytes, and URLs."""
    found = BuiltFiles()
    for path in sorted(directory.rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue  # the build's lock file
        found.files += 1
        if path.name.endswith(".gz"):
            found.gzip_bytes += path.stat().st_size
            continue
        found.xml_bytes += path.stat().st_size
        if count_urls:
            found.urls += path.read_bytes().count(URL_TAG)
    return found


class BuildCase:
    """``manage.py build_sitemaps`` into a new empty directory, removed afterwards."""

    def __init__(self, gzip: bool, jobs: int) -> None:
        self.gzip = gzip
        self.jobs = jobs

    def setup(self) -> None:
        register_bench_source(PAGE_MAX)
        warm_process()

    def write(self, directory: Path) -> None:
        call_command(
            "build_sitemaps", output=str(directory), gzip=self.gzip, jobs=self.jobs, verbosity=0
        )

    def run(self, check: bool) -> Outcome:
        directory = Path(tempfile.mkdtemp(prefix="sitemapkit-bench-"))
        try:
            started = time.perf_counter()
            self.write(directory)
            seconds = time.perf_counter() - started
            found = built_files(directory, check)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return Outcome(
            seconds=seconds,
            bytes=found.xml_bytes,
            urls=found.urls if check else None,
            files=found.files,
            gzip_bytes=found.gzip_bytes,
        )


class BuildFloor(BuildCase):
    """The ORM floor over every row, cut into 50,000-URL files; no gzip, no index."""

    def __init__(self) -> None:
        super().__init__(gzip=False, jobs=1)

    def write(self, directory: Path) -> None:
        rows = orm_rows(0, None)
        number = 0
        while (first := next(rows, None)) is not None:
            number += 1
            page = chain([first], islice(rows, PAGE_MAX - 1))
            with open(directory / f"sitemap-bench-{number}.xml", "wb") as file:
                for chunk in urlset_chunks(page, iso_lastmod):
                    file.write(chunk)


def warm_process() -> None:
    """Open the connection and load the URL resolvers before anything is measured:
    every long-running server has done both before its first sitemap request."""
    connection.ensure_connection()
    reverse("bench-page", kwargs={"slug": slug_for(1)})


@dataclass
class Plan:
    """The sizes every process derives from the same options."""

    rows: int
    build_rows: int
    index_rows: int

    @property
    def serve_size(self) -> int:
        return min(self.rows, PAGE_MAX)

    @property
    def index_pages(self) -> int:
        """Pages of ``bench`` in the index cases' index."""
        return -(-self.index_rows // PAGE_MAX)

    @property
    def last_build_page(self) -> int:
        return -(-self.build_rows // PAGE_MAX)

    @property
    def far_page(self) -> int:
        """Page 20 of the build table, or its last page if it has fewer."""
        return min(20, self.last_build_page)


# The cases of bench/site_cases.py: the index and page 1 from the database views with
# 1 and with 100 sites, configured by SITEMAPKIT_SITES as a dict ("dict") or as
# "django.contrib.sites" ("framework"). The command runs each 1 and 100 in turns.
SITE_CASES = tuple(
    f"sites-{variant}-{document}-{count}"
    for variant in ("dict", "framework")
    for document in ("index", "page")
    for count in (1, 100)
)

# The steps of bench/incremental_cases.py: build_sitemaps into one directory, into
# it empty, again with nothing changed, and after changes to the build table.
INCREMENTAL_CASES = ("incremental-full", "incremental-unchanged", "incremental-changed")

# The builds of bench/distributed_cases.py, in pairs: the --build-rows table into
# an S3 bucket from one process, and through Celery's workers (--via celery).
DISTRIBUTED_CASES = ("distributed-local", "distributed-celery")

# None: a case of bench/compat_cases.py or bench/site_cases.py, which import this
# module (and django.contrib.sitemaps or django.contrib.sites, which no other case
# needs), a step of bench/incremental_cases.py or a build of
# bench/distributed_cases.py; the command makes it.
CASE_FACTORIES: dict[str, Callable[[Plan], Case] | None] = {
    "contrib": lambda plan: ContribServe(plan.serve_size),
    "contrib-class": None,
    "dropin-generic": None,
    "dropin-class": None,
    "files-page": None,
    "ours": lambda plan: OursServe(1, plan.serve_size),
    "ours-regex": lambda plan: OursServe(1, plan.serve_size, RegexBenchSource),
    "orm-floor": lambda plan: OrmFloor(plan.serve_size),
    "cursor-floor": lambda plan: CursorFloor(plan.serve_size),
    "ours-page-1": lambda plan: OursServe(1, PAGE_MAX),
    "ours-page-20": lambda plan: OursServe(plan.far_page, PAGE_MAX),
    "build-gzip": lambda plan: BuildCase(gzip=True, jobs=1),
    "build-registered": None,
    "build-nogzip": lambda plan: BuildCase(gzip=False, jobs=1),
    "build-jobs2": lambda plan: BuildCase(gzip=True, jobs=2),
    "build-floor": lambda plan: BuildFloor(),
    "contrib-index": lambda plan: ContribIndex(),
    "index-full": lambda plan: OursIndex(conditional=False),
    "index-304": lambda plan: OursIndex(conditional=True),
    **dict.fromkeys(SITE_CASES),
    **dict.fromkeys(INCREMENTAL_CASES),
    **dict.fromkeys(DISTRIBUTED_CASES),
}
CASES = tuple(CASE_FACTORIES)
# The cases that serve page 1 of --rows: the same URLs, the same locations.
SERVING_CASES = (
    "contrib",
    "contrib-class",
    "dropin-generic",
    "dropin-class",
    "files-page",
    "ours",
    "ours-regex",
    "orm-floor",
    "cursor-floor",
)
# The cases of bench/compat_cases.py. Each drop-in case costs a run nearly as much as
# contrib (the drop-in still calls the project's location() for every row), so
# together they would add over a minute to a default run; build-registered is a
# second build of the whole --build-rows table, and files-page builds the bench
# table once in every process it runs in. They run when named, or with the group below.
COMPAT_ONLY = ("contrib-class", "dropin-generic", "dropin-class", "files-page", "build-registered")
# contrib's view and the drop-in over the same Sitemap classes, the same classes
# registered, built and served from the files, and the declared source next to
# them: what the drop-in buys, what registering buys, and what declaring buys; and
# build-gzip, the declared source's build, for build-registered to be read against.
COMPAT_CASES = ("contrib", *COMPAT_ONLY, "ours", "build-gzip")
# Cases that read the --index-rows table (bench_indexpage), and only it.
INDEX_CASES = ("contrib-index", "index-full", "index-304")
# Cases that read the whole --build-rows table (or a page far into it).
TABLE_CASES = tuple(
    name for name in CASES if name not in (*SERVING_CASES, *INDEX_CASES, *SITE_CASES)
)
BUILD_CASES = ("build-gzip", "build-registered", "build-nogzip", "build-jobs2", "build-floor")
# A run without --cases: the index cases read ten million rows and are asked for,
# as are the drop-in's (see COMPAT_ONLY), the several sites' ones, the
# incremental steps (three builds of the build table and more per run) and the
# distributed builds (Redis, an S3 server and Celery's workers).
DEFAULT_CASES = tuple(
    name
    for name in CASES
    if name not in (*INDEX_CASES, *COMPAT_ONLY, *SITE_CASES, *INCREMENTAL_CASES, *DISTRIBUTED_CASES)
)


# -- measurements, one per child process ------------------------------------------


def measure_time(case: Case, runs: int) -> dict[str, Any]:
    case.setup()
    # Untimed: fills the caches (pages of the database file, compiled
    # templates, URL templates) and checks the output.
    warmup = case.run(check=True)
    outcomes = [case.run(check=False) for _ in range(runs)]
    ttfbs = [o.ttfb for o in outcomes if o.ttfb is not None]
    # A case may also time one of its steps alone (site_cases.py: choosing the site).
    steps: Callable[[], dict[str, float]] | None = getattr(case, "steps", None)
    return {
        "seconds": [o.seconds for o in outcomes],
        "median": statistics.median(o.seconds for o in outcomes),
        "min": min(o.seconds for o in outcomes),
        "ttfb": [o.ttfb for o in outcomes],
        "ttfb_median": statistics.median(ttfbs) if ttfbs else None,
        "bytes_per_run": [o.bytes for o in outcomes],
        "warmup": asdict(warmup),
        "steps": steps() if steps is not None else {},
    }


PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def current_rss() -> int:
    """Resident bytes now (``ru_maxrss`` only knows the peak)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE_SIZE


def peak_rss(who: int = resource.RUSAGE_SELF) -> int:
    return resource.getrusage(who).ru_maxrss * 1024  # KiB on Linux


def measure_rss(case: Case) -> dict[str, Any]:
    case.setup()
    gc.collect()
    peak_before = peak_rss()
    baseline = current_rss()
    outcome = case.run(check=False)
    peak = peak_rss()
    return {
        "baseline": baseline,
        "peak_before": peak_before,
        "peak": peak,
        # If start-up had already peaked higher, the case did not move the
        # peak and this overstates it; peak_before tells.
        "extra": max(peak - baseline, 0),
        # --jobs workers: the largest of the worker processes.
        "children_peak": peak_rss(resource.RUSAGE_CHILDREN),
        "seconds": outcome.seconds,
    }


def measure_tracemalloc(case: Case) -> dict[str, Any]:
    case.setup()
    gc.collect()
    tracemalloc.start()
    try:
        outcome = case.run(check=False)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Much slower than the timed runs: tracing every allocation.
    return {"peak": peak, "current": current, "seconds": outcome.seconds}


MEASURES: dict[str, Callable[[Case, int], dict[str, Any]]] = {
    "time": measure_time,
    "rss": lambda case, runs: measure_rss(case),
    "tracemalloc": lambda case, runs: measure_tracemalloc(case),
}


def measure(
    name: str, how: str, plan: Plan, runs: int, make: Callable[[Plan], Case] | None = None
) -> dict[str, Any]:
    """Measure case ``name``, made by ``make`` when CASE_FACTORIES has no factory for it."""
    factory = make or CASE_FACTORIES[name]
    assert factory is not None, f"case {name!r} needs its factory"
    case = factory(plan)
    try:
        result = MEASURES[how](case, runs)
    finally:
        teardown(case)
    return {"case": name, "measure": how, **result}
