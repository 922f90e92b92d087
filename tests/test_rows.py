from __future__ import annotations

import datetime as dt
import logging
import random
from collections import Counter
from collections.abc import Generator
from typing import Any, cast

import pytest
from django.db import connection
from django.db.models import Max
from django.test import override_settings
from factories import ArticleFactory, CategoryFactory, bulk_articles
from plans import all_rows, entries_of, page_rows, query_pager
from testapp.models import Article, Category

from django_sitemapkit import Field, SitemapSource
from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sources.entries import RowFormat
from django_sitemapkit.sources.plan import compile_plan
from django_sitemapkit.sources.rows import (
    LASTMOD_TEXT,
    RowShape,
    load_timestamptz_natively,
    raw_chunks,
)
from django_sitemapkit.sources.text_lastmods import CANONICAL_UTC_TEXT
from django_sitemapkit.values import format_lastmod

pytestmark = pytest.mark.django_db

UTC = dt.timezone.utc


class Everything(SitemapSource):
    """Every kind of column a source reads: a relation, a datetime, a date, text, a float."""

    name = "everything"
    queryset = Article.objects.all()
    url_name = "article-in-category"
    url_kwargs = {"category": "category__slug", "slug": "slug"}
    lastmod = "updated_at"
    changefreq = Field("changefreq")
    priority = Field("priority")


class ByDate(Everything):
    lastmod = "published_on"


class ByAnnotation(SitemapSource):
    """A lastmod computed by the database: SQLite returns it as text, not as a datetime."""

    name = "categories"
    queryset = Category.objects.annotate(newest=Max("article__updated_at"))
    url_name = "category-detail"
    url_kwargs = {"category": "slug"}
    lastmod = "newest"


def through_the_orm(source_class: type[SitemapSource]) -> type[SitemapSource]:
    return type(f"Orm{source_class.__name__}", (source_class,), {"raw_rows": False})


def entries_and_log(
    source: SitemapSource, caplog: pytest.LogCaptureFixture
) -> tuple[list[Entry], list[str]]:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        entries = entries_of(source)
    return entries, [record.getMessage() for record in caplog.records]


def make_rows(**dates: Any) -> None:
    tech = CategoryFactory.create(slug="tech")
    odd = CategoryFactory.create(slug="a b&c")
    values: list[dict[str, Any]] = [
        {"updated_at": dt.datetime(2024, 2, 29, 23, 59, 59, 999_999, UTC)},
        {"updated_at": dt.datetime(2024, 3, 1, tzinfo=UTC), "priority": 0.25},
        {"updated_at": dt.datetime(1, 1, 1, tzinfo=UTC), "changefreq": "daily"},
        {"updated_at": dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC), "priority": 1.5},
        {"updated_at": dt.datetime(999, 5, 6, 7, 8, 9, 10, UTC), "changefreq": "sometimes"},
        {"updated_at": None, "published_on": dt.date(2023, 1, 31)},
        {"updated_at": dt.datetime(2024, 6, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=5)))},
        {"category": None},
        {"slug": "with/slash"},
        {"slug": None},
        {"category": odd, "slug": "x'y\"z"},
    ]
    for number, fields in enumerate(values):
        ArticleFactory.create(**{"category": tech, "slug": f"post-{number}", **fields, **dates})


@pytest.mark.parametrize("source_class", [Everything, ByDate, ByAnnotation])
def test_raw_rows_give_the_entries_and_log_of_the_orm(
    source_class: type[SitemapSource], caplog: pytest.LogCaptureFixture
) -> None:
    make_rows()
    raw, orm = source_class(), through_the_orm(source_class)()
    assert compile_plan(raw).row_format is RowFormat.RAW
    assert compile_plan(orm).row_format is RowFormat.DICT

    entries, log = entries_and_log(raw, caplog)

    assert (entries, log) == entries_and_log(orm, caplog)
    # Each source has valid rows and rows that are skipped.
    assert entries
    assert log


def test_utc_datetimes_are_written_to_the_second_in_utc(caplog: pytest.LogCaptureFixture) -> None:
    make_rows()
    entries, _ = entries_and_log(Everything(), caplog)
    lastmods = {entry.loc.rsplit("/", 2)[-2]: entry.lastmod for entry in entries}
    assert lastmods["post-0"] == "2024-02-29T23:59:59+00:00"
    assert lastmods["post-1"] == "2024-03-01T00:00:00+00:00"
    assert lastmods["post-2"] == "0001-01-01T00:00:00+00:00"
    assert lastmods["post-6"] == "2024-06-01T07:00:00+00:00"


@override_settings(USE_TZ=False)
def test_without_use_tz_raw_rows_still_give_the_entries_of_the_orm(
    caplog: pytest.LogCaptureFixture,
) -> None:
    CategoryFactory.create(slug="tech")
    for day in (1, 15, 31):
        ArticleFactory.create(slug=f"p{day}", updated_at=dt.datetime(2024, 1, day, 22, 30))

    assert (
        LASTMOD_TEXT not in RowShape(query_pager(compile_plan(Everything())).row_queryset).positions
    )
    assert entries_and_log(Everything(), caplog) == entries_and_log(
        through_the_orm(Everything)(), caplog
    )


@pytest.mark.parametrize(
    ("source_class", "as_text"),
    [(Everything, True), (ByDate, False), (ByAnnotation, False)],
)
def test_only_a_datetime_column_is_read_as_its_text_on_sqlite_and_postgresql(
    source_class: type[SitemapSource], as_text: bool
) -> None:
    columns = RowShape(query_pager(compile_plan(source_class())).row_queryset)
    expected = as_text and connection.vendor in ("sqlite", "postgresql", "mysql")
    # The text replaces the datetime column: nothing else reads it.
    assert (LASTMOD_TEXT in columns.positions, "updated_at" in columns.positions) == (
        expected,
        not expected and source_class is Everything,
    )


class LocatedByLastmod(Everything):
    """The lastmod field is a URL argument too, so it must stay a datetime column."""

    url_name = "article-by-pk"
    url_kwargs = {"pk": "pk"}
    fields = ["updated_at"]


def test_a_lastmod_column_something_else_reads_is_not_replaced() -> None:
    columns = RowShape(query_pager(compile_plan(LocatedByLastmod())).row_queryset)
    assert (LASTMOD_TEXT in columns.positions, "updated_at" in columns.positions) == (False, True)


def canonical(value: dt.datetime) -> str:
    """How Django stores a UTC datetime on SQLite: str() of the naive value."""
    return str(value.replace(tzinfo=None))


def stored_texts(seed: int, count: int) -> list[str]:
    """Texts a DateTimeField column may hold: Django's own, other programs', and junk."""
    generator = random.Random(seed)
    texts = []
    for _ in range(count):
        value = dt.datetime(
            generator.randint(1, 9999),
            generator.randint(1, 12),
            generator.randint(1, 28),
            generator.randint(0, 23),
            generator.randint(0, 59),
            generator.randint(0, 59),
            generator.choice([0, 0, 1, 999_999, generator.randint(0, 999_999)]),
        )
        text = canonical(value)
        texts += [text, text.replace(" ", "T"), text[:16], text + "+02:00", text + "Z"]
        if "." in text:
            texts.append(text[:-3])
    for year in (1, 1900, 2023, 2024, 9999):
        for month in range(1, 13):
            texts += [f"{year:04d}-{month:02d}-{day:02d} 12:00:00" for day in (28, 29, 30, 31)]
    return [
        *texts,
        "0000-01-01 00:00:00",
        "2024-00-10 00:00:00",
        "2024-13-10 00:00:00",
        "2024-01-00 00:00:00",
        "2024-01-01 24:00:00",
        "2024-01-01 23:60:00",
        "2024-01-01 23:59:60",
        "2024-01-01 23:59:59.1234567",
        "2024-W01-1 10:00:00",
        "2024-060 10:00:00",
        "\uff12\uff10\uff12\uff14-01-01 00:00:00",
        "2024-01-01  00:00:00",
        " 2024-01-01 00:00:00",
        "2024-01-01 00:00:00 ",
        "2024-01-01",
        "",
        "yesterday",
        "12345",
    ]


def orm_lastmod(pk: int) -> tuple[str, str | None]:
    """What values() and format_lastmod() make of a row's lastmod (every one a text),
    or that the ORM raised; a text values() reads as None (its MAX() raises in the
    converter) is no lastmod either, and refuses its entry."""
    try:
        (value,) = Article.objects.filter(pk=pk).values_list("updated_at", flat=True)
    except ValueError:
        return ("raised", None)
    if value is None:
        return ("raised", None)
    return ("value", format_lastmod(value))


def raw_lastmod(read: Any, row: Any) -> tuple[str, str | None]:
    try:
        return ("value", read(row))
    except InvalidEntry:
        return ("raised", None)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite stores datetimes as text")
def test_stored_text_is_formatted_as_the_orm_formats_it() -> None:
    texts = stored_texts(seed=17, count=400)
    articles = bulk_articles(len(texts))
    table = connection.ops.quote_name(Article._meta.db_table)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {table} SET updated_at = %s WHERE id = %s",
            [(text, article.pk) for text, article in zip(texts, articles, strict=True)],
        )
    plan = compile_plan(Everything())
    columns = RowShape(query_pager(plan).row_queryset)
    read = columns.lastmod_reader("updated_at")
    pk = columns.reader("pk")
    rows = {pk(row): row for row in all_rows(plan)}

    outcomes = [(raw_lastmod(read, rows[a.pk]), orm_lastmod(a.pk)) for a in articles]

    assert [raw for raw, _ in outcomes] == [orm for _, orm in outcomes]
    # Both routes are taken: most texts are sliced, the others parsed.
    kinds = Counter(bool(CANONICAL_UTC_TEXT.fullmatch(text)) for text in texts)
    assert kinds[True] > 400
    assert kinds[False] > 1_000
    assert ("raised", None) in [orm for _, orm in outcomes]


class Described(Everything):
    def priority(self, row: dict[str, Any]) -> float:  # type: ignore[override]
        return 0.5


@pytest.mark.parametrize(
    "source_class",
    [
        Described,
        type("Instances", (Everything,), {"use_instances": True}),
        type("Located", (Everything,), {"location": lambda self, row: "/x/"}),
    ],
)
def test_rows_go_through_the_orm_when_code_of_the_project_reads_them(
    source_class: type[SitemapSource],
) -> None:
    assert compile_plan(source_class()).row_format in (RowFormat.DICT, RowFormat.INSTANCE)


def test_a_helper_of_the_project_that_is_no_hook_keeps_the_raw_rows() -> None:
    # Only the documented hooks see rows: any other name is the project's own.
    keyed = type("Keyed", (Everything,), {"row_key": lambda self, row: row["slug"]})
    assert compile_plan(keyed()).row_format is RowFormat.RAW


def random_instants(seed: int, count: int) -> list[dt.datetime]:
    generator = random.Random(seed)
    span = (dt.datetime(9999, 12, 30) - dt.datetime(1, 1, 2)).total_seconds()
    instants = [
        dt.datetime(1, 1, 2, tzinfo=UTC)
        + dt.timedelta(
            seconds=generator.uniform(0, span), microseconds=generator.randint(0, 999_999)
        )
        for _ in range(count)
    ]
    return [
        *instants,
        dt.datetime(1, 1, 1, tzinfo=UTC),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999_999, UTC),
        dt.datetime(2024, 10, 27, 0, 30, tzinfo=UTC),  # 02:30 in Paris, twice
        dt.datetime(2024, 10, 27, 1, 30, tzinfo=UTC),
    ]


def test_raw_datetimes_are_the_orm_datetimes() -> None:
    instants = random_instants(seed=31, count=1_000)
    articles = bulk_articles(len(instants))
    for article, instant in zip(articles, instants, strict=True):
        article.updated_at = instant
    Article.objects.bulk_update(articles, ["updated_at"], batch_size=500)
    plan = compile_plan(LocatedByLastmod())
    read = RowShape(query_pager(plan).row_queryset).reader("updated_at")

    raw = [read(row) for row in all_rows(plan)]
    orm = list(query_pager(plan).ordered.values_list("updated_at", flat=True))

    assert raw == orm
    assert [(value, value.tzinfo) for value in raw] == [(value, value.tzinfo) for value in orm]
    assert sorted(raw) == sorted(instants)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL: a psycopg 3 loader"
)
def test_postgresql_reads_timestamptz_with_psycopg_s_own_loader() -> None:
    from psycopg import adapters, postgres, pq

    oid = postgres.types["timestamptz"].oid
    native = adapters.get_loader(oid, pq.Format.TEXT)
    connection.ensure_connection()
    with connection.chunked_cursor() as cursor:
        assert cursor.cursor.adapters.get_loader(oid, pq.Format.TEXT) is not native
        load_timestamptz_natively(connection, cursor)
        assert cursor.cursor.adapters.get_loader(oid, pq.Format.TEXT) is native


class Nothing(Everything):
    queryset = Article.objects.none()


def test_a_queryset_that_matches_nothing_has_no_rows(caplog: pytest.LogCaptureFixture) -> None:
    make_rows()
    source = Nothing()
    plan = compile_plan(source)
    assert plan.row_format is RowFormat.RAW
    assert (all_rows(plan), page_rows(plan, 1)) == ([], [])
    assert entries_and_log(source, caplog) == ([], [])


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL: a psycopg 3 loader"
)
def test_a_session_in_another_time_zone_keeps_django_s_loader() -> None:
    from psycopg import adapters, postgres, pq

    oid = postgres.types["timestamptz"].oid
    ArticleFactory.create(updated_at=dt.datetime(2024, 3, 31, 0, 30, tzinfo=UTC))
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Paris'")
    try:
        with connection.chunked_cursor() as cursor:
            load_timestamptz_natively(connection, cursor)
            loader = cursor.cursor.adapters.get_loader(oid, pq.Format.TEXT)
            assert loader is not adapters.get_loader(oid, pq.Format.TEXT)
        plan = compile_plan(LocatedByLastmod())
        read = RowShape(query_pager(plan).row_queryset).reader("updated_at")
        assert [read(row) for row in all_rows(plan)] == list(
            query_pager(plan).ordered.values_list("updated_at", flat=True)
        )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="PostgreSQL and MySQL: Django never closes an in-memory SQLite database",
)
def test_rows_left_open_when_the_connection_is_closed_are_dropped_quietly() -> None:
    # Found by the load run: under ASGI, Django closes the connection of a
    # request whose client left while the view ran, and the rows the view had
    # opened were closed later, on the closed connection; sqlite3 raised
    # there (a file database), and skipping the close instead makes psycopg
    # warn about a server-side cursor deleted while open (a ResourceWarning,
    # an error in this suite).
    bulk_articles(3)
    rows = cast(
        Generator[Any, None, None],
        raw_chunks(Article.objects.order_by("pk").values_list("slug"), chunk_size=1),
    )
    assert len(next(rows)) == 1  # the cursor is open
    connection.close()
    rows.close()  # raised InterfaceError before
    assert Article.objects.count() == 3  # and the next query reconnects
