"""Rows that make no entry: the first each reason costs on a page is logged in full,
the others counted in one line at the end of the page, by the views and the build."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from factories import ArticleFactory
from sitemap_xml import fetch, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit import InvalidEntry, SitemapSource
from django_sitemapkit.sources.optional import LeftOut
from django_sitemapkit.sources.skips import Tally, keep_made, reason_kind, skip_row, undate_row

SITE = "https://www.example.com"
Sources = Callable[..., None]


def outside(slug: str) -> str:
    return (
        f"location '{SITE}/blog/{slug}/' is outside '{SITE}/shop/', the directory the sitemap "
        "is served from (sitemaps.org location rule)"
    )


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"]


# -- the tally -----------------------------------------------------------------------


def test_a_reason_without_its_values() -> None:
    assert (
        reason_kind(outside("a"))
        == reason_kind(outside("b-2"))
        == ("location ..., the directory the sitemap is served from (sitemaps.org location rule)")
    )
    assert reason_kind("priority 7.0 is outside 0.0 to 1.0") == (
        "priority ... is outside ... to ..."
    )
    assert reason_kind("URL argument 'slug' (field 'slug') is None") == "URL argument ...) is None"
    assert reason_kind("changefreq 'x' is not one of always, hourly") != reason_kind(
        "lastmod 'x' is not a date or datetime"
    )


class Bound:
    def priority(self) -> None: ...


def test_a_bound_method_s_address_is_one_of_its_values() -> None:
    # A mixin copies an instance's methods into its URL dicts: every request's
    # instance is another address, the reason the same.
    first, second = Bound(), Bound()
    assert reason_kind(f"{first.priority!r} is not a number") == reason_kind(
        f"{second.priority!r} is not a number"
    )


def test_values_left_out_are_told_once_per_page_as_skipped_rows_are(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="django_sitemapkit")
    tally = Tally()
    reasons = (("changefreq", "changefreq 'x' is not one of always"), ("priority", "priority 7"))
    for pk in (1, 2):
        assert keep_made("posts", f"pk={pk}", LeftOut(pk, reasons), tally, False) == pk
    tally.end_page(1)
    assert tally.skipped == 0
    assert logged(caplog) == [
        ("WARNING", "Left out the changefreq of pk=1 of source 'posts': 'x' is not one of always."),
        ("WARNING", "Left out the priority of pk=1 of source 'posts': 7."),
        ("DEBUG", "Left out the changefreq of pk=2 of source 'posts': 'x' is not one of always."),
        ("DEBUG", "Left out the priority of pk=2 of source 'posts': 7."),
        (
            "WARNING",
            "Left out the changefreq of 1 more row of source 'posts' on page 1 for the same "
            "reason as pk=1 (2 in all).",
        ),
        (
            "WARNING",
            "Left out the priority of 1 more row of source 'posts' on page 1 for the same "
            "reason as pk=1 (2 in all).",
        ),
    ]
    with pytest.raises(InvalidEntry) as raised:
        keep_made("posts", "pk=3", LeftOut(3, reasons), Tally(), strict=True)
    assert str(raised.value) == (
        "Left out the changefreq of pk=3 of source 'posts': 'x' is not one of always."
    )


def test_each_reason_is_told_once_per_page_and_counted_at_its_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="django_sitemapkit")
    tally = Tally()
    for pk in (1, 2, 3):
        skip_row("posts", f"pk={pk}", outside(f"p{pk}"), tally, strict=False)
        skip_row("posts", f"pk={pk + 10}", "priority 7.0 is outside 0.0 to 1.0", tally, False)
    skip_row("posts", "pk=20", "changefreq 'x' is not one of always", tally, strict=False)
    tally.end_page(4)
    skip_row("posts", "pk=21", outside("p21"), tally, strict=False)
    tally.end_page(5)
    assert (tally.rows, tally.skipped) == (0, 8)
    assert logged(caplog) == [
        ("WARNING", f"Skipped pk=1 of source 'posts': {outside('p1')}."),
        ("WARNING", "Skipped pk=11 of source 'posts': priority 7.0 is outside 0.0 to 1.0."),
        # Every other row at DEBUG, for whoever needs the list.
        ("DEBUG", f"Skipped pk=2 of source 'posts': {outside('p2')}."),
        ("DEBUG", "Skipped pk=12 of source 'posts': priority 7.0 is outside 0.0 to 1.0."),
        ("DEBUG", f"Skipped pk=3 of source 'posts': {outside('p3')}."),
        ("DEBUG", "Skipped pk=13 of source 'posts': priority 7.0 is outside 0.0 to 1.0."),
        ("WARNING", "Skipped pk=20 of source 'posts': changefreq 'x' is not one of always."),
        (
            "WARNING",
            "Skipped 2 more rows of source 'posts' on page 4 for the same reason as pk=1 "
            "(3 in all).",
        ),
        (
            "WARNING",
            "Skipped 2 more rows of source 'posts' on page 4 for the same reason as pk=11 "
            "(3 in all).",
        ),
        # A new page tells its first one again.
        ("WARNING", f"Skipped pk=21 of source 'posts': {outside('p21')}."),
    ]


def future(lastmod: str) -> str:
    return (
        f"{lastmod} is later than now, and search engines refuse a date in the future (a "
        "clock running ahead, or a naive datetime saved in another time zone than TIME_ZONE?)"
    )


def test_a_date_left_out_is_told_as_a_skip_is_and_counts_no_skip(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="django_sitemapkit")
    tally = Tally()
    undate_row("posts", "pk=1", "2031-01-01T00:00:00+00:00", tally, strict=False)
    skip_row("posts", "pk=2", "priority 7.0 is outside 0.0 to 1.0", tally, strict=False)
    undate_row("posts", "pk=3", "2032-05-06T07:08:09+00:00", tally, strict=False)
    undate_row("posts", "pk=4", "2033-01-01T00:00:00+00:00", tally, strict=False)
    tally.end_page(1)
    # The row is listed: it is no skip.
    assert tally.skipped == 1
    assert logged(caplog) == [
        (
            "WARNING",
            f"Left out the lastmod of pk=1 of source 'posts': "
            f"{future('2031-01-01T00:00:00+00:00')}.",
        ),
        ("WARNING", "Skipped pk=2 of source 'posts': priority 7.0 is outside 0.0 to 1.0."),
        (
            "DEBUG",
            f"Left out the lastmod of pk=3 of source 'posts': "
            f"{future('2032-05-06T07:08:09+00:00')}.",
        ),
        (
            "DEBUG",
            f"Left out the lastmod of pk=4 of source 'posts': "
            f"{future('2033-01-01T00:00:00+00:00')}.",
        ),
        (
            "WARNING",
            "Left out the lastmod of 2 more rows of source 'posts' on page 1 for the same "
            "reason as pk=1 (3 in all).",
        ),
    ]
    with pytest.raises(InvalidEntry) as raised:
        undate_row("posts", "pk=5", "2031-01-01", Tally(), strict=True)
    assert (
        str(raised.value)
        == f"Left out the lastmod of pk=5 of source 'posts': {future('2031-01-01')}."
    )


def test_strict_mode_raises_at_the_first(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(InvalidEntry) as raised:
        skip_row("posts", "pk=1", outside("p1"), Tally(), strict=True)
    assert str(raised.value) == f"Skipped pk=1 of source 'posts': {outside('p1')}."
    assert logged(caplog) == []


def test_without_a_tally_every_row_is_told(caplog: pytest.LogCaptureFixture) -> None:
    for pk in (1, 2):
        skip_row("posts", f"pk={pk}", outside(f"p{pk}"), None, strict=False)
    assert logged(caplog) == [
        ("WARNING", f"Skipped pk=1 of source 'posts': {outside('p1')}."),
        ("WARNING", f"Skipped pk=2 of source 'posts': {outside('p2')}."),
    ]


# -- a sitemap mounted under /shop/: every /blog/ location is outside it ---------------


class Mixed(SitemapSource):
    """Under /shop/ the rows whose slug starts with "in" and no other."""

    name = "mixed"
    queryset = Article.objects.all()
    fields = ("slug",)

    def location(self, row: dict[str, Any]) -> str:
        slug = row["slug"]
        return f"/shop/{slug}/" if slug.startswith("in") else f"/blog/{slug}/"


class SmallMixed(Mixed):
    limit = 2


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_a_page_logs_the_first_row_outside_and_counts_the_others(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(Mixed)
    made = [ArticleFactory.create(slug=slug) for slug in ["o1", "in1", "o2", "o3", "o4", "in2"]]
    for _ in range(2):  # each request tells its own
        caplog.clear()
        status, body, _ = fetch(client, "/shop/sitemap-mixed-1.xml")
        assert status == 200
        assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/shop/in1/", f"{SITE}/shop/in2/"]
        assert logged(caplog) == [
            ("WARNING", f"Skipped pk={made[0].pk} of source 'mixed': {outside('o1')}."),
            (
                "WARNING",
                "Skipped 3 more rows of source 'mixed' on page 1 for the same reason as "
                f"pk={made[0].pk} (4 in all).",
            ),
        ]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_a_page_of_nothing_but_rows_outside_is_summed_up_before_its_404(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(Mixed)
    made = [ArticleFactory.create(slug=f"o{n}") for n in range(3)]
    assert fetch(client, "/shop/sitemap-mixed-1.xml")[0] == 404
    assert logged(caplog) == [
        ("WARNING", f"Skipped pk={made[0].pk} of source 'mixed': {outside('o0')}."),
        (
            "WARNING",
            "Skipped 2 more rows of source 'mixed' on page 1 for the same reason as "
            f"pk={made[0].pk} (3 in all).",
        ),
        (
            "ERROR",
            "Page 1 of sitemap source 'mixed' has no valid entry (see the warnings above); it "
            "is answered with 404.",
        ),
    ]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_the_build_logs_once_per_page_and_counts_every_skipped_row(
    sources: Sources, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource, SmallMixed)  # articles are listed under /shop/
    # Half the rows inside at the end: a section that loses most fails the build.
    slugs = ["o1", "o2", "in1", "o3", "o4", "o5", "o6", "in2", "in3", "in4", "in5", "in6"]
    made = [ArticleFactory.create(slug=slug) for slug in slugs]
    stdout = io.StringIO()
    call_command("build_sitemaps", output=str(tmp_path), stdout=stdout)
    row = next(line for line in stdout.getvalue().splitlines() if line.startswith("mixed "))
    # Rows, URLs, files, ..., skipped rows: each counted, as before.
    assert (row.split()[1:4], row.split()[7]) == (["12", "6", "4"], "6")
    assert logged(caplog) == [
        ("WARNING", f"Skipped pk={made[0].pk} of source 'mixed': {outside('o1')}."),
        (
            "WARNING",
            "Skipped 1 more row of source 'mixed' on page 1 for the same reason as "
            f"pk={made[0].pk} (2 in all).",
        ),
        ("WARNING", f"Skipped pk={made[3].pk} of source 'mixed': {outside('o3')}."),
        ("WARNING", f"Skipped pk={made[4].pk} of source 'mixed': {outside('o4')}."),
        (
            "WARNING",
            "Skipped 1 more row of source 'mixed' on page 3 for the same reason as "
            f"pk={made[4].pk} (2 in all).",
        ),
        ("WARNING", f"Skipped pk={made[6].pk} of source 'mixed': {outside('o6')}."),
    ]
