"""sources/writer.py: a row whose ``lastmod`` is later than now is listed without it, on
the direct route (``<url>`` lines straight from the row) and the route of entries
(languages, extensions, the HTML pages) alike; logged once a page, raised in strict mode."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from factories import bulk_articles
from plans import entries_of
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit import InvalidEntry
from django_sitemapkit.sources.plan import compile_plan
from django_sitemapkit.values import format_lastmod

pytestmark = pytest.mark.django_db
UTC = dt.timezone.utc
SITE = "https://www.example.com"
PAST = dt.datetime(2024, 5, 1, tzinfo=UTC)


def rows(future: dt.datetime) -> tuple[Article, Article, Article]:
    """Three rows, the middle and the last dated ``future``."""
    first, middle, last = sorted(bulk_articles(3, updated_at=PAST), key=lambda row: row.pk)
    Article.objects.filter(pk__in=[middle.pk, last.pk]).update(updated_at=future)
    return first, middle, last


def late(pk: int, lastmod: str) -> str:
    return (
        f"Left out the lastmod of pk={pk} of source 'articles': {lastmod} is later than now, "
        "and search engines refuse a date in the future (a clock running ahead, or a naive "
        "datetime saved in another time zone than TIME_ZONE?)."
    )


def test_a_future_lastmod_is_left_out_of_the_lines(caplog: pytest.LogCaptureFixture) -> None:
    future = dt.datetime.now(UTC) + dt.timedelta(hours=1)
    first, middle, last = rows(future)
    plan = compile_plan(ArticleSource())
    ((_, chunk),) = plan.pager.numbered_chunks()
    lines, lastmods = plan.writer.lines(chunk)
    written = format_lastmod(PAST)
    assert lastmods == [written, None, None]
    assert lines == [
        f"<url><loc>{SITE}/articles/{first.slug}/</loc><lastmod>{written}</lastmod>"
        "<changefreq>weekly</changefreq><priority>0.6</priority></url>\n",
        f"<url><loc>{SITE}/articles/{middle.slug}/</loc>"
        "<changefreq>weekly</changefreq><priority>0.6</priority></url>\n",
        f"<url><loc>{SITE}/articles/{last.slug}/</loc>"
        "<changefreq>weekly</changefreq><priority>0.6</priority></url>\n",
    ]
    # Without a tally (a caller that keeps none), each row is told.
    assert caplog.messages == [
        late(middle.pk, format_lastmod(future)),
        late(last.pk, format_lastmod(future)),
    ]


def test_within_five_minutes_a_lastmod_is_the_clock_s_skew() -> None:
    soon = dt.datetime.now(UTC) + dt.timedelta(minutes=4)
    rows(soon)
    assert [entry.lastmod for entry in entries_of(ArticleSource())] == [
        format_lastmod(PAST),
        format_lastmod(soon),
        format_lastmod(soon),
    ]


class Translated(ArticleSource):
    i18n = True
    languages = ["en", "fr"]
    alternates = True


def test_each_entry_of_a_row_loses_it_and_the_row_is_told_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    future = dt.datetime.now(UTC) + dt.timedelta(days=1)
    first, middle, last = rows(future)
    found = [(entry.loc, entry.lastmod) for entry in entries_of(Translated())]
    written = format_lastmod(PAST)
    # A URL a language (this URLconf has no language prefix: the two URLs are equal).
    assert found == [
        (f"{SITE}/articles/{row.slug}/", lastmod)
        for row, lastmod in [(first, written), (middle, None), (last, None)]
        for _ in ("en", "fr")
    ]
    assert caplog.messages == [
        late(middle.pk, format_lastmod(future)),
        late(last.pk, format_lastmod(future)),
    ]


class Dated(ArticleSource):
    lastmod = "published_on"


def test_a_date_no_time_zone_has_reached_is_left_out() -> None:
    # The day after tomorrow (in UTC) is nowhere yet, UTC+14 being 14 hours ahead;
    # the exact moment a date is reached is test_values.py's.
    today = dt.datetime.now(UTC).date()
    bulk_articles(1, published_on=today)
    bulk_articles(1, published_on=today + dt.timedelta(days=2))
    assert [entry.lastmod for entry in entries_of(Dated())] == [today.isoformat(), None]


def test_strict_mode_raises_at_the_first(caplog: pytest.LogCaptureFixture) -> None:
    future = dt.datetime.now(UTC) + dt.timedelta(days=1)
    _, middle, _ = rows(future)
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(InvalidEntry) as raised:
        entries_of(ArticleSource())
    assert str(raised.value) == late(middle.pk, format_lastmod(future))
    assert caplog.messages == []
