"""Key ranges for the build: their stats, in one query of many ranges."""

from __future__ import annotations

import datetime as dt

import pytest
from plans import query_pager
from testapp.models import Photo

from django_sitemapkit import SitemapSource
from django_sitemapkit.sources.plan import compile_plan
from django_sitemapkit.sources.ranges import RangeStats, range_stats, starts

pytestmark = pytest.mark.django_db
DAY = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


class PhotoSource(SitemapSource):
    name = "photos"
    # Photo's Meta.ordering ("position", "pk") names a column no range's aggregate
    # selects: the ranges' UNION must not order by it.
    queryset = Photo.objects.all()
    lastmod = "updated_at"

    def location(self, row: Photo) -> str:
        return f"/photos/{row.pk}/"


def test_the_stats_of_several_ranges_of_a_model_with_a_default_ordering() -> None:
    photos = [
        Photo.objects.create(url=f"/p/{n}.jpg", position=9 - n, updated_at=DAY + dt.timedelta(n))
        for n in range(10)
    ]
    pager = query_pager(compile_plan(PhotoSource()))
    lows = [None, *starts(pager, None, None, 4)]
    assert lows == [None, (photos[4].pk,), (photos[8].pk,)]
    assert range_stats(pager, lows, None) == [
        RangeStats(4, DAY + dt.timedelta(3), sum(photo.pk for photo in photos[:4])),
        RangeStats(4, DAY + dt.timedelta(7), sum(photo.pk for photo in photos[4:8])),
        RangeStats(2, DAY + dt.timedelta(9), sum(photo.pk for photo in photos[8:])),
    ]
