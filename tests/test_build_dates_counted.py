"""build/dates.py: the days of a section's lastmods for the touched-in-bulk warning,
counted as its lines are rendered (``counted_days()``) where the build renders the
whole section here, and asked of the database in one grouped query where it renders
part of it, or a row gives several lines."""

from __future__ import annotations

import datetime as dt
import io
import logging
from collections import Counter
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.build.dates import counted_days
from django_sitemapkit.encoding.encoder import Lines

pytestmark = pytest.mark.django_db
UTC = dt.timezone.utc
TOUCHED = (
    "Section 'articles': 600 of its 1,000 dated rows (60 %) have their lastmod on "
    "2024-03-05 (UTC). If that day was a change made to every row (a migration, a "
    "script, an import that saved them again) rather than edits of their pages, the "
    "dates say nothing, and search engines learn to distrust them: set lastmod only "
    "when a page's content changes."
)


class HundredPerPage(ArticleSource):
    limit = 100


class InLanguages(HundredPerPage):
    i18n = True


def build(output: Path, **options: Any) -> list[str]:
    """The queries of a build that count the rows' days."""
    with CaptureQueriesContext(connection) as queries:
        call_command("build_sitemaps", output=str(output), stdout=io.StringIO(), **options)
    return [q["sql"] for q in queries.captured_queries if "_sitemapkit_day" in q["sql"]]


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.fixture
def touched(sources: Any) -> None:
    """600 rows on 2024-03-05 in UTC (200 of them on the 4th in New York), 400 on days
    of their own, 5 undated; ten shards of 100 rows."""
    sources(HundredPerPage)
    bulk_articles(200, updated_at=dt.datetime(2024, 3, 4, 23, tzinfo=ZoneInfo("America/New_York")))
    bulk_articles(400, updated_at=dt.datetime(2024, 3, 5, 23, 59, tzinfo=UTC))
    start = dt.datetime(2020, 1, 1, 12, tzinfo=UTC)
    Article.objects.bulk_create(
        Article(slug=f"spread-{n}", updated_at=start + dt.timedelta(days=n)) for n in range(400)
    )
    bulk_articles(5, updated_at=None)


def test_the_days_of_the_lastmods_written_are_counted() -> None:
    days: Counter[str] = Counter()
    runs: list[Lines] = [
        (["<url>a</url>", "<url>b</url>"], ["2024-03-05T04:30:00+00:00", None]),
        (["<url>c</url>"], ["2024-03-05"]),
        ([], []),
    ]
    assert list(counted_days(iter(runs), days)) == runs
    assert days == {"2024-03-05": 2}


@pytest.mark.usefixtures("touched")
def test_a_whole_section_rendered_is_counted_without_a_query(
    out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert build(out) == []
    assert warnings(caplog) == [TOUCHED]


@pytest.mark.usefixtures("touched")
def test_a_section_rendered_in_part_is_counted_by_the_database(
    out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(out)
    caplog.clear()
    # One row moves to a day of its own, its shard's newest: one shard of ten is rendered.
    Article.objects.filter(slug="spread-7").update(updated_at=dt.datetime(2023, 1, 1, tzinfo=UTC))
    assert len(build(out)) == 1
    assert warnings(caplog) == [TOUCHED]


@override_settings(
    ROOT_URLCONF="testapp.urls_i18n",
    LANGUAGES=[("en", "English"), ("fr", "French")],
    LANGUAGE_CODE="en",
    USE_I18N=True,
)
@pytest.mark.usefixtures("touched")
def test_a_section_of_languages_is_counted_by_the_database(
    sources: Any, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Each row gives a line per language: the lines would count it twice.
    sources(InLanguages)
    assert len(build(out)) == 1
    assert warnings(caplog) == [TOUCHED]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("touched")
def test_shards_rendered_in_processes_bring_their_days_back(
    out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert build(out, jobs=2) == []
    assert warnings(caplog) == [TOUCHED]
