"""Each page's newest ``lastmod``, for the index, recomputed only when it can have changed;
the ``lastmod`` path those aggregates read, which must hold dates; and how many rows
have their ``lastmod`` on each day.

A section's pages are described by one aggregate over the whole section (its
row count, highest primary key and newest ``lastmod``, see
``QueryPager.section_stats``). The list of per-page lastmods costs a pass
over every row; it is kept, per process, under that aggregate's fingerprint,
so an index request pays for it again only after the section has changed in
a way the aggregate shows.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any

from django.core.exceptions import FieldError
from django.db import connections, models
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber, TruncDate

from django_sitemapkit.sources import kept
from django_sitemapkit.sources.pages import LastmodValue, QueryPager, SectionStats
from django_sitemapkit.sources.starts import keeps_starts, kept_key
from django_sitemapkit.sources.stored_lastmods import checked, converters_of, loaded, resolved
from django_sitemapkit.sources.versioned import PageRun, newest_of, walk

# Column aliases of the query that finds each page's newest lastmod without a key,
# and of the one that counts the rows of each day.
ROW_NUMBER = "_sitemapkit_row"
PAGE_LASTMOD = "_sitemapkit_lastmod"
PAGE = "_sitemapkit_page"
DAY, DAY_ROWS = "_sitemapkit_day", "_sitemapkit_day_rows"
#: What the tests clear between them: every section's kept pages.
clear_cache = kept.clear_cache


def page_lastmods(pager: QueryPager, stats: SectionStats) -> tuple[LastmodValue | None, ...]:
    """The newest lastmod of each of the section's pages (``None`` where unknown)."""
    if pager.lastmod_path is None:
        # Without a lastmod field there is nothing the database can aggregate.
        return (None,) * -(-stats.rows // pager.page_size)
    key = kept_key(pager, stats.fingerprint)
    found = None if key is None else kept.known(key)
    if found is not None and found.lastmods is not None:
        return found.lastmods
    if pager.key is None:
        computed = numbered_lastmods(pager, pager.lastmod_path)
        if key is not None:
            kept.keep(key, lastmods=computed)
        return computed
    # Page after page along the key, each from where the last one ended: the index
    # reads every key once, where seeking each page from the top would read them
    # N/2 times on average (``versioned.walk()``).
    runs = list(walk(pager, None))
    computed = tuple(run.lastmod for run in runs)
    if key is not None:
        kept.keep(key, lastmods=computed, starts=walked_starts(pager, stats, runs))
    return computed


def walked_starts(
    pager: QueryPager, stats: SectionStats, runs: list[PageRun]
) -> dict[int, tuple[Any, ...]]:
    """Each page's first key, as the walk found it: kept only where a page keeps its
    start under the section's validator, and where the walk saw the section the
    validator describes (its rows and newest lastmod; a change in between would
    be kept under the validator of before)."""
    walked = (sum(run.rows for run in runs), newest_of(run.lastmod for run in runs))
    if not keeps_starts(pager) or walked != (stats.rows, stats.lastmod):
        return {}
    return {page: run.first for page, run in enumerate(runs, 1) if page > 1 and run.first}


def numbered_lastmods(pager: QueryPager, path: str) -> tuple[LastmodValue | None, ...]:
    """Each page's newest lastmod from one query, numbering the rows in order; where a
    page's ``MAX()`` is no date, its newest that is (``stored_lastmods.py``).

    Without a key, an aggregate per page would skip the rows of every page
    before it by OFFSET: N pages would read N²/2 pages of rows. Here the
    database numbers the rows once (``ROW_NUMBER()``, in the pages' own order)
    and takes the ``MAX()`` of each page's numbers, as the per-page aggregate
    would. The ORM cannot group by a window function, so the outer query is
    written here around the compiled inner one.
    """
    found = loaded(partial(page_maxima, pager, path), pager.section, path)
    return tuple(
        resolved(value, pager.ordered[number : number + pager.page_size], pager.section, path)
        for number, value in found
    )


def page_maxima(pager: QueryPager, path: str, lastmod: Any) -> list[tuple[int, Any]]:
    """The first row's number (from 0) and the ``MAX()`` of ``lastmod`` of each page,
    the lastmod as ``stored_lastmods.checked()`` reads it."""
    queryset = pager.ordered
    alias = queryset.db
    connection = connections[alias]
    ordering = [expression for expression, _ in queryset.query.get_compiler(alias).get_order_by()]
    numbered = (
        queryset.order_by()
        .annotate(**{ROW_NUMBER: Window(RowNumber(), order_by=ordering), PAGE_LASTMOD: lastmod})
        .values(ROW_NUMBER, PAGE_LASTMOD)
    )
    sql, params = numbered.query.get_compiler(alias).as_sql()
    row, lastmod, page, rows, pages = map(
        connection.ops.quote_name, (ROW_NUMBER, PAGE_LASTMOD, PAGE, "rows", "pages")
    )
    # Each page is grouped by the number of its first row, n - n % size (n counted
    # from 0), never by n / size: "/" divides integers exactly on MySQL and MariaDB
    # (2 / 5 is 0.4000), so a division gave each row a group of its own there.
    # The modulo is the backend's own spelling (MOD() on Oracle), and the group is
    # a column of a derived table: "GROUP BY 1" is a constant on Oracle, and an
    # expression repeated with its parameter is not one expression to a server
    # that binds parameters itself (psycopg's server_side_binding).
    number = f"({row} - 1)"
    first = f"{number} - {connection.ops.combine_expression('%%', [number, '%s'])}"
    numbered_pages = f"SELECT {first} AS {page}, {lastmod} FROM ({sql}) {rows}"
    grouped = (
        f"SELECT {page}, MAX({lastmod}) FROM ({numbered_pages}) {pages} "
        f"GROUP BY {page} ORDER BY {page}"
    )
    # The converters the ORM applies to the column (SQLite keeps datetimes as text).
    expression = numbered.query.annotations[PAGE_LASTMOD]
    converters = converters_of(expression, connection)
    with connection.cursor() as cursor:
        cursor.execute(grouped, (pager.page_size, *params))
        fetched = cursor.fetchall()
    return [
        (int(number), checked(value, converters, expression, connection))
        for number, value in fetched
    ]


def selected_field(queryset: models.QuerySet[Any], path: str) -> object | None:
    """The field (or an annotation's output field) that ``values(path)`` selects;
    ``None`` if the path does not exist (sitemapkit.E011) or its type cannot be told."""
    try:
        query = queryset.values(path).query
        expression = (
            query.annotation_select[path] if path in query.annotation_select else query.select[0]
        )
        found: object = expression.output_field
    except FieldError:  # no such path, or an expression of mixed types
        return None
    return found


def is_date(field: object) -> bool:
    # A DateTimeField is a DateField (django.db.models.fields); a custom field
    # stored as either says so in its internal type.
    return isinstance(field, models.DateField) or (
        isinstance(field, models.Field)
        and field.get_internal_type() in ("DateField", "DateTimeField")
    )


def dated_path(queryset: models.QuerySet[Any], path: str | None) -> str | None:
    """``path`` if it selects dates, else ``None``: the ``lastmod`` path whose ``MAX()``
    pages and sections are described by.

    Another column's ``MAX()`` is no lastmod (every row holding it is skipped
    when the entries are written), and on PostgreSQL ``MAX()`` of a boolean or
    a UUID is an error. A path whose type cannot be told is kept, as declared.
    """
    if path is None:
        return None
    found = selected_field(queryset, path)
    return path if found is None or is_date(found) else None


def day_counts(pager: QueryPager) -> list[tuple[dt.date, int]]:
    """How many of the section's rows have their ``lastmod`` on each day: a datetime's
    day in UTC (in ``TIME_ZONE`` without ``USE_TZ``), in one grouped query."""
    path = pager.lastmod_path
    assert path is not None
    rows = pager.ordered.order_by().filter(**{f"{path}__isnull": False})
    found = selected_field(rows, path)
    datetimes = isinstance(found, models.DateTimeField) or (
        isinstance(found, models.Field) and found.get_internal_type() == "DateTimeField"
    )
    day = TruncDate(path, tzinfo=dt.timezone.utc) if datetimes else F(path)
    counted = rows.values(**{DAY: day}).annotate(**{DAY_ROWS: Count("pk")})
    return [(row[DAY], row[DAY_ROWS]) for row in counted]
