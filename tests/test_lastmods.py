"""sources/lastmods.py: how many of a section's rows have their lastmod on each day."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.models import Max
from django.db.models.functions import Coalesce, Greatest
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from plans import query_pager
from testapp.models import Photo
from testapp.sitemaps import ArticleSource

from django_sitemapkit.sources.lastmods import day_counts
from django_sitemapkit.sources.plan import compile_plan

pytestmark = pytest.mark.django_db
NEW_YORK = ZoneInfo("America/New_York")


class ByDay(ArticleSource):
    lastmod = "published_on"


def test_the_rows_of_each_day_in_utc_in_one_query() -> None:
    bulk_articles(2, updated_at=dt.datetime(2024, 3, 5, 1, tzinfo=dt.timezone.utc))
    # 23:30 on the 5th in New York is the 6th in UTC.
    bulk_articles(3, updated_at=dt.datetime(2024, 3, 5, 23, 30, tzinfo=NEW_YORK))
    bulk_articles(1, updated_at=None)
    bulk_articles(4, updated_at=dt.datetime(2024, 3, 5, 2, tzinfo=dt.timezone.utc), published=False)
    pager = query_pager(compile_plan(ArticleSource()))
    with CaptureQueriesContext(connection) as queries:
        found = day_counts(pager)
    assert len(queries) == 1
    assert sorted(found) == [(dt.date(2024, 3, 5), 2), (dt.date(2024, 3, 6), 3)]


def test_a_date_field_is_counted_as_it_is() -> None:
    bulk_articles(2, published_on=dt.date(2024, 3, 5))
    bulk_articles(1, published_on=dt.date(2024, 3, 7))
    assert sorted(day_counts(query_pager(compile_plan(ByDay())))) == [
        (dt.date(2024, 3, 5), 2),
        (dt.date(2024, 3, 7), 1),
    ]


class NewerOfTwo(ArticleSource):
    """A lastmod expression: the newer of the row's date and its newest photo's."""

    lastmod: Any = Greatest("updated_at", Coalesce(Max("photos__updated_at"), "updated_at"))


def test_a_lastmod_expression_is_counted_by_its_value() -> None:
    first, *_ = bulk_articles(3, updated_at=dt.datetime(2024, 3, 5, 1, tzinfo=dt.timezone.utc))
    Photo.objects.create(article=first, updated_at=dt.datetime(2024, 3, 7, tzinfo=dt.timezone.utc))
    assert sorted(day_counts(query_pager(compile_plan(NewerOfTwo())))) == [
        (dt.date(2024, 3, 5), 2),
        (dt.date(2024, 3, 7), 1),
    ]
