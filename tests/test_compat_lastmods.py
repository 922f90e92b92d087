"""The lastmods of django_sitemapkit.compat's documents against contrib's own views, run
side by side on the same classes: naive datetimes, and the document of every section
when one of them is empty."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from contrib_side_by_side import SITE, serve_side_by_side
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as contrib
from django.http import HttpRequest, HttpResponseBase
from django.test import RequestFactory
from sitemap_xml import parse_index, parse_urlset

from django_sitemapkit import compat

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat")]

#: Naive, as a project without USE_TZ (or a hand-written class) hands them out.
NAIVE = [dt.datetime(2013, 3, 13, 10, 0), dt.datetime(2014, 3, 13, 10, 0)]


class NaiveSitemap(Sitemap):  # type: ignore[type-arg]
    def items(self) -> list[int]:
        return [0, 1]

    def location(self, item: int) -> str:
        return f"/n/{item}/"

    def lastmod(self, item: int) -> dt.datetime:
        return NAIVE[item]


class NaiveLatestSitemap(NaiveSitemap):
    def get_latest_lastmod(self) -> dt.datetime:
        return NAIVE[1]


class EmptySitemap(NaiveSitemap):
    def items(self) -> list[int]:
        return []


@pytest.fixture(autouse=True)
def side_by_side(settings: Any) -> None:
    serve_side_by_side(settings)
    # Five hours west of UTC in March: a naive value read in TIME_ZONE is 15:00 UTC.
    settings.TIME_ZONE = "America/Chicago"


def answered(response: HttpResponseBase) -> tuple[int, str | None, bytes]:
    render = getattr(response, "render", None)
    if render is not None:
        render()
    return response.status_code, response.get("Last-Modified"), response.content  # type: ignore[attr-defined]


def get(rf: RequestFactory) -> HttpRequest:
    return rf.get("/sitemap.xml", secure=True)


def page(rf: RequestFactory, sitemaps: dict[str, Any], section: str | None) -> tuple[Any, Any]:
    """contrib's answer and the drop-in's to the same request."""
    return (
        answered(contrib.sitemap(get(rf), sitemaps, section=section)),
        answered(compat.sitemap(get(rf), sitemaps, section=section)),
    )


def index(rf: RequestFactory, sitemaps: dict[str, Any]) -> tuple[Any, Any]:
    return (
        answered(contrib.index(get(rf), sitemaps, sitemap_url_name="contrib-section")),
        answered(compat.index(get(rf), sitemaps, sitemap_url_name="compat-section")),
    )


@pytest.mark.parametrize("use_tz", [True, False])
@pytest.mark.parametrize("declared", [NaiveSitemap, NaiveLatestSitemap])
def test_a_naive_datetime_is_read_in_utc_as_contrib_reads_it(
    rf: RequestFactory,
    settings: Any,
    use_tz: bool,
    declared: type[Sitemap],  # type: ignore[type-arg]
) -> None:
    settings.USE_TZ = use_tz
    theirs, ours = page(rf, {"naive": declared}, "naive")
    assert ours[:2] == theirs[:2] == (200, "Thu, 13 Mar 2014 10:00:00 GMT")
    # The same times of day as contrib's, with the offset the protocol requires
    # (contrib's <urlset> template writes the dates alone).
    assert [url.lastmod for url in parse_urlset(ours[2])] == [
        "2013-03-13T10:00:00+00:00",
        "2014-03-13T10:00:00+00:00",
    ]
    theirs, ours = index(rf, {"naive": declared})
    assert ours[:2] == theirs[:2] == (200, "Thu, 13 Mar 2014 10:00:00 GMT")
    assert parse_index(ours[2]) == [
        (f"{SITE}/compat/sitemap-naive.xml", "2014-03-13T10:00:00+00:00")
    ]


def test_an_empty_section_leaves_the_document_of_every_section_undated(
    rf: RequestFactory,
) -> None:
    theirs, ours = page(rf, {"naive": NaiveSitemap, "empty": EmptySitemap}, None)
    assert ours[:2] == theirs[:2] == (200, None)
    assert [url.loc for url in parse_urlset(ours[2])] == [f"{SITE}/n/0/", f"{SITE}/n/1/"]
    # Without the empty section, both date it.
    theirs, ours = page(rf, {"naive": NaiveSitemap}, None)
    assert ours[:2] == theirs[:2] == (200, "Thu, 13 Mar 2014 10:00:00 GMT")
