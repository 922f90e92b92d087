from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import pytest
from django.db import connection
from django.db.models import Max
from django.test import override_settings
from factories import ArticleFactory, CategoryFactory
from testapp.models import Article, Category

from django_sitemapkit import Field, SitemapSource
from django_sitemapkit.encoder import Entry
from django_sitemapkit.locations import LocationPolicy
from django_sitemapkit.rawrows import RawColumns

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
        entries = list(source.entries(source.all_rows(), LocationPolicy.from_settings()))
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
    assert raw.raw_columns() is not None
    assert orm.raw_columns() is None

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

    assert not RawColumns(Everything().row_queryset()).stores_utc_datetimes("updated_at")
    assert entries_and_log(Everything(), caplog) == entries_and_log(
        through_the_orm(Everything)(), caplog
    )


def test_only_sqlite_datetime_columns_are_formatted_without_conversion() -> None:
    columns = RawColumns(Everything().row_queryset())
    sqlite = connection.vendor == "sqlite"
    assert columns.stores_utc_datetimes("updated_at") is sqlite
    assert not columns.stores_utc_datetimes("published_on")
    assert not columns.stores_utc_datetimes("slug")


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
    assert source_class().raw_columns() is None
