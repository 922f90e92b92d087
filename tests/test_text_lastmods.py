"""sources/text_lastmods.py: a lastmod read as the database's text of its UTC time is
the lastmod the ORM's datetime gives, sliced where the text has the database's shape;
on PostgreSQL, a value psycopg cannot load refuses one entry, not the page."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import DataError, connection
from django.db.models import TextField
from django.db.models.functions import Cast
from factories import bulk_articles
from plans import all_rows, query_pager
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sources.plan import compile_plan
from django_sitemapkit.sources.rows import LASTMOD_TEXT, RowShape
from django_sitemapkit.sources.text_lastmods import (
    CANONICAL_UTC_TEXT,
    UTC_TEXTS,
    SlicedLastmods,
)
from django_sitemapkit.values import format_lastmod

UTC = dt.timezone.utc
postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's text of a timestamptz"
)


def lastmods_read() -> dict[int, str | None]:
    """Each row's lastmod as the plan reads it, by primary key."""
    plan = compile_plan(ArticleSource())
    shape = RowShape(query_pager(plan).row_queryset)
    assert LASTMOD_TEXT in shape.positions
    read, pk = shape.lastmod_reader("updated_at"), shape.reader("pk")
    return {pk(row): read(row) for row in all_rows(plan)}


@pytest.mark.django_db
def test_the_database_s_text_gives_the_orm_s_lastmods() -> None:
    generator = random.Random(41)
    instants = [
        dt.datetime(1, 1, 1, tzinfo=UTC)
        + dt.timedelta(
            days=generator.randint(0, 3_652_058),
            seconds=generator.randint(0, 86_399),
            microseconds=generator.choice([0, 500_000, 10, generator.randint(0, 999_999)]),
        )
        for _ in range(600)
    ]
    articles = bulk_articles(len(instants))
    for article, instant in zip(articles, instants, strict=True):
        article.updated_at = instant
    Article.objects.bulk_update(articles, ["updated_at"], batch_size=500)

    read = lastmods_read()

    orm = dict(Article.objects.values_list("pk", "updated_at"))
    assert read == {pk: format_lastmod(value) for pk, value in orm.items()}
    # Every text was sliced: each has the database's shape (both of PostgreSQL's).
    texts = Article.objects.values_list(Cast("updated_at", TextField()), flat=True)
    assert all(UTC_TEXTS[connection.vendor].fullmatch(text) for text in texts)
    if connection.vendor == "postgresql":
        assert {"." in text for text in texts} == {True, False}


@pytest.mark.skipif(connection.vendor != "mysql", reason="MySQL's zero date")
@pytest.mark.django_db
def test_mysql_a_zero_date_is_no_lastmod_as_through_the_orm() -> None:
    (article,) = bulk_articles(1)
    table = connection.ops.quote_name(Article._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute("SET SESSION sql_mode = ''")
        cursor.execute(
            f"UPDATE {table} SET updated_at = '0000-00-00 00:00:00' WHERE id = %s", [article.pk]
        )
    assert list(Article.objects.values_list("updated_at", flat=True)) == [None]
    assert lastmods_read() == {article.pk: None}


@postgresql
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("stored", "text"),
    [
        ("infinity", "infinity"),
        ("-infinity", "-infinity"),
        ("0044-03-15 12:00:00+00 BC", "0044-03-15 12:00:00+00 BC"),
        ("12000-01-01 00:00:00+00", "12000-01-01 00:00:00+00"),
    ],
)
def test_postgresql_a_value_psycopg_refuses_refuses_its_entry(stored: str, text: str) -> None:
    (article,) = bulk_articles(1)
    table = connection.ops.quote_name(Article._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET updated_at = %s WHERE id = %s", [stored, article.pk])
    # Through the ORM the whole query fails.
    with pytest.raises(DataError):
        list(Article.objects.values_list("updated_at", flat=True))
    with pytest.raises(InvalidEntry) as raised:
        lastmods_read()
    assert str(raised.value) == f"lastmod {text!r} is not a datetime Python can hold"


@postgresql
@pytest.mark.django_db
def test_postgresql_a_session_in_another_time_zone_still_gives_utc() -> None:
    (article,) = bulk_articles(1)
    Article.objects.filter(pk=article.pk).update(
        updated_at=dt.datetime(2024, 3, 31, 0, 30, 15, 250_000, tzinfo=UTC)
    )
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Asia/Kolkata'")
    try:
        assert lastmods_read() == {article.pk: "2024-03-31T00:30:15+00:00"}
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")


def test_sliced_lastmods_are_formatted_when_read_and_know_their_newest() -> None:
    texts = ["2024-05-01 10:00:00.5+00", "2025-01-02 03:04:05+00", "2024-12-31 23:59:59+00"]
    lastmods = SlicedLastmods(texts)
    assert (len(lastmods), lastmods.newest) == (3, "2025-01-02T03:04:05+00:00")
    assert list(lastmods) == [
        "2024-05-01T10:00:00+00:00",
        "2025-01-02T03:04:05+00:00",
        "2024-12-31T23:59:59+00:00",
    ]
    assert lastmods[1:] == ["2025-01-02T03:04:05+00:00", "2024-12-31T23:59:59+00:00"]
    assert list(lastmods.days()) == [lastmod[:10] for lastmod in lastmods]
    assert SlicedLastmods([]).newest == ""


@pytest.mark.parametrize(
    ("text", "fast"),
    [
        ("2024-01-31 10:00:00", True),
        ("2024-03-30 23:59:59.123456", True),
        ("2024-04-30 00:00:00", True),
        ("2024-02-29 12:00:00", True),  # a leap year
        ("2000-02-29 12:00:00", True),  # divisible by 400
        ("0004-02-29 00:00:00", True),
        ("2023-02-29 12:00:00", False),  # no such day: the ORM's route says so
        ("1900-02-29 12:00:00", False),  # divisible by 100, not by 400
        ("2024-04-31 00:00:00", False),
        ("2024-06-31 00:00:00", False),
        ("2024-02-30 00:00:00", False),
        ("2024-01-32 00:00:00", False),
        ("0000-01-01 00:00:00", False),
    ],
)
def test_every_real_day_takes_the_sliced_route(text: str, fast: bool) -> None:
    assert (CANONICAL_UTC_TEXT.fullmatch(text) is not None) == fast


def test_the_pattern_takes_exactly_the_days_of_the_calendar() -> None:
    taken = {
        (year, month, day)
        for year in (1, 4, 100, 400, 1900, 2000, 2023, 2024, 9999)
        for month in range(1, 13)
        for day in range(1, 32)
        if CANONICAL_UTC_TEXT.fullmatch(f"{year:04d}-{month:02d}-{day:02d} 00:00:00")
    }
    real = set()
    for year in (1, 4, 100, 400, 1900, 2000, 2023, 2024, 9999):
        day = dt.date(year, 1, 1)
        while day.year == year:
            real.add((day.year, day.month, day.day))
            if day == dt.date.max:
                break
            day += dt.timedelta(days=1)
    assert taken == real
