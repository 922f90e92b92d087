"""The benchmark's rows: a series where row ``n`` is a pure function of ``n``, seeded
into ``bench_page`` or ``bench_indexpage`` once and then reused, extended or
trimmed to the size a run needs; and what else the benchmark database holds."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Iterator
from dataclasses import dataclass

from django.core.management.color import no_style
from django.db import connection, transaction

from bench.models import BenchRow, Page

# Rows per INSERT ... SELECT (a statement each): on SQLite a million rows is about
# one second.
SEED_BATCH = 1_000_000
# Rows compared with slug_for()/updated_at_for() after a load (see check_sample()).
SEED_SAMPLE = 200

# Deterministic lastmods spread over four years from this instant.
EPOCH = dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc)
SPAN_MICROSECONDS = 4 * 365 * 24 * 3600 * 1_000_000
# An odd multiplier (Knuth's multiplicative hash) scatters consecutive rows
# over the whole span, so pk order and time order differ as on a real site.
SCATTER = 2_654_435_761


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
        generate_rows(model, first, last)
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


def generate_rows(model: type[BenchRow], first: int, last: int) -> None:
    """PostgreSQL: ``INSERT ... SELECT`` over ``generate_series()``, the rows computed by
    the server, a statement per ``SEED_BATCH`` rows.

    Ten million rows load in about a minute, where ``COPY`` of rows made in Python
    took several. The SQL is ``slug_for()`` and ``updated_at_for()`` again (``lpad``
    only below 7 digits: it would cut a longer number); ``check_sample()`` holds it to
    them. ``n * SCATTER`` stays below 2**63 for every ``n`` below 3.4e9.
    """
    table = connection.ops.quote_name(model._meta.db_table)
    sql = f"""
        INSERT INTO {table} (id, slug, updated_at)
        SELECT
            n,
            'page-' || CASE WHEN n < 10000000 THEN lpad(n::text, 7, '0') ELSE n::text END,
            %s::timestamptz
                + ((n * {SCATTER:d}::bigint) %% {SPAN_MICROSECONDS:d}::bigint)
                * interval '1 microsecond'
        FROM generate_series(%s::bigint, %s::bigint) AS n
    """
    with connection.cursor() as cursor:
        for start in range(first, last + 1, SEED_BATCH):
            stop = min(start + SEED_BATCH - 1, last)
            cursor.execute(sql, [EPOCH, start, stop])


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
