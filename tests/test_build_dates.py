"""build/dates.py through ``build_sitemaps``: each file's ``<lastmod>`` in the index is
when its bytes last changed, never earlier; the shards of a date left out as in the
future; and the warning for a section whose dates look touched in bulk."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from sitemap_xml import parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.build.refresh import refresh_changes
from django_sitemapkit.names import MANIFEST_FILENAME
from django_sitemapkit.values import format_lastmod, parse_lastmod, utc_instant

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
Sources = Callable[..., None]
UTC = dt.timezone.utc
PAGES = [f"{SITE}/sitemap-articles-{n}.xml" for n in (1, 2, 3)]


class TenPerPage(ArticleSource):
    limit = 10


def build(output: Path, **options: Any) -> str:
    stdout = io.StringIO()
    call_command("build_sitemaps", output=str(output), stdout=stdout, **options)
    return stdout.getvalue()


def index(output: Path) -> dict[str, str | None]:
    return dict(parse_index((output / "sitemap.xml").read_bytes()))


def newest_rows(output: Path) -> dict[str, str | None]:
    """Each page's newest written lastmod, read from the page itself."""
    found = {}
    for loc in index(output):
        lastmods = [u.lastmod for u in parse_urlset((output / loc.rsplit("/")[-1]).read_bytes())]
        found[loc] = max(filter(None, lastmods), default=None)
    return found


def instant(text: str | None) -> dt.datetime:
    assert text is not None
    return utc_instant(parse_lastmod(text))


def published(output: Path) -> dict[str, tuple[int, bytes]]:
    """Each published file: its inode (the very file) and its bytes."""
    return {p.name: (p.stat().st_ino, p.read_bytes()) for p in sorted(output.iterdir())}


def articles(count: int) -> list[Article]:
    """Rows an hour apart, oldest first, on 2024-05-01 and after."""
    start = dt.datetime(2024, 5, 1, tzinfo=UTC)
    made = [bulk_articles(1, updated_at=start + dt.timedelta(hours=n))[0] for n in range(count)]
    return sorted(made, key=lambda row: row.pk)


# -- a file's date in the index ------------------------------------------------------


def test_a_page_that_loses_rows_is_dated_later_and_never_earlier(
    sources: Sources, out: Path
) -> None:
    sources(TenPerPage)
    rows = articles(30)
    build(out)
    first = index(out)
    # The set's first build dates each page by its newest row.
    assert first == newest_rows(out)
    assert first[PAGES[1]] == format_lastmod(rows[19].updated_at)
    # The newest row of page 2 deleted: the page's newest row is now older, yet
    # its date moves on, or a crawler that fetches only newer files would keep
    # listing the deleted URL. The other pages keep theirs.
    rows[19].delete()
    build(out)
    second = index(out)
    assert newest_rows(out)[PAGES[1]] == format_lastmod(rows[18].updated_at)
    assert instant(second[PAGES[1]]) > instant(first[PAGES[1]])
    assert {loc: second[loc] for loc in (PAGES[0], PAGES[2])} == {
        loc: first[loc] for loc in (PAGES[0], PAGES[2])
    }
    # Another row, not the newest, deleted from it: later again.
    rows[12].delete()
    build(out)
    third = index(out)
    assert instant(third[PAGES[1]]) > instant(second[PAGES[1]])
    # A row edited to a date newer than its rows but older than the page's date:
    # the bytes changed, so the date moves on, never back to the row's.
    Article.objects.filter(pk=rows[11].pk).update(updated_at=dt.datetime(2025, 1, 2, tzinfo=UTC))
    build(out)
    fourth = index(out)
    assert instant(fourth[PAGES[1]]) > instant(third[PAGES[1]])
    # Rebuilds that write the same bytes leave every date, and every file, alone.
    before = published(out)
    assert build(out).splitlines()[-1].startswith("Nothing changed: ")
    assert published(out) == before
    build(out, full=True)
    assert {n: v for n, v in published(out).items() if n != MANIFEST_FILENAME} == {
        n: v for n, v in before.items() if n != MANIFEST_FILENAME
    }


def built_less(sources: Sources, out: Path, deleted: int) -> list[Article]:
    """Three pages of ten rows built, then built again without row ``deleted``."""
    sources(TenPerPage)
    rows = articles(30)
    build(out)
    rows[deleted].delete()
    build(out)
    return rows


def test_a_row_newer_than_the_page_dates_the_page(sources: Sources, out: Path) -> None:
    rows = built_less(sources, out, 0)
    dated = instant(index(out)[PAGES[0]])
    assert dated > instant(format_lastmod(rows[9].updated_at))
    # A row saved after the page's date: the page takes that row's date.
    newer = dated + dt.timedelta(seconds=1)
    Article.objects.filter(pk=rows[3].pk).update(updated_at=newer)
    build(out)
    assert index(out)[PAGES[0]] == format_lastmod(newer)


def test_the_manifest_records_each_file_s_date(sources: Sources, out: Path) -> None:
    built_less(sources, out, 19)
    recorded = json.loads((out / MANIFEST_FILENAME).read_bytes())
    assert recorded["format"] == 3
    files = [f for shard in recorded["shards"] for f in shard["files"]]
    assert {f"{SITE}/{f['name']}": f["lastmod"] for f in files} == index(out)
    assert [f["newest"] for f in files] == list(newest_rows(out).values())


def test_a_manifest_of_format_2_dates_each_file_by_its_newest_row(
    sources: Sources, out: Path
) -> None:
    """What the previous version wrote, and listed in its index: the next build reads it,
    and dates from there."""
    sources(TenPerPage)
    rows = articles(30)
    build(out)
    path = out / MANIFEST_FILENAME
    recorded = json.loads(path.read_bytes())
    recorded["format"] = 2
    for file in [recorded["index"], *(f for s in recorded["shards"] for f in s["files"])]:
        del file["lastmod"]
    path.write_text(json.dumps(recorded))
    before = published(out)
    # Nothing changed: nothing is published, the manifest of format 2 stays.
    assert build(out).splitlines()[-1].startswith("Nothing changed: ")
    assert published(out) == before
    rows[19].delete()
    build(out)
    dates = index(out)
    assert instant(dates[PAGES[1]]) > instant(format_lastmod(rows[19].updated_at))
    assert dates[PAGES[0]] == format_lastmod(rows[9].updated_at)
    assert json.loads(path.read_bytes())["format"] == 3


# -- a lastmod in the future ---------------------------------------------------------


def test_a_row_dated_in_the_future_is_built_without_its_date(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(TenPerPage)
    rows = articles(30)
    future = dt.datetime.now(UTC) + dt.timedelta(days=1)
    Article.objects.filter(pk=rows[14].pk).update(updated_at=future)
    build(out)
    page = {u.loc: u.lastmod for u in parse_urlset((out / "sitemap-articles-2.xml").read_bytes())}
    assert page[f"{SITE}/articles/{rows[14].slug}/"] is None
    assert len([lastmod for lastmod in page.values() if lastmod is not None]) == 9
    # Its page is dated by the newest date written, never by the future one.
    assert index(out)[PAGES[1]] == format_lastmod(rows[19].updated_at)
    assert caplog.messages == [
        f"Left out the lastmod of pk={rows[14].pk} of source 'articles': "
        f"{format_lastmod(future)} is later than now, and search engines refuse a date in "
        "the future (a clock running ahead, or a naive datetime saved in another time zone "
        "than TIME_ZONE?)."
    ]
    # Each build renders that shard again until the date is written; the same
    # bytes meanwhile, so nothing is published.
    summary = build(out).splitlines()
    assert summary[0].startswith("articles: 30 URLs in 3 files, 1 of 3 shard(s) rendered ")
    assert summary[-1].startswith("Nothing changed: ")


# -- a section touched in bulk -------------------------------------------------------

TOUCHED = (
    "Section 'articles': {rows} of its {dated} dated rows ({share} %) have their lastmod on "
    "{day} (UTC). If that day was a change made to every row (a migration, a script, an "
    "import that saved them again) rather than edits of their pages, the dates say nothing, "
    "and search engines learn to distrust them: set lastmod only when a page's content "
    "changes."
)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def spread(count: int) -> None:
    """``count`` rows a day apart from 2020-01-01: no two on one day, none in 2024."""
    start = dt.datetime(2020, 1, 1, 12, tzinfo=UTC)
    Article.objects.bulk_create(
        Article(slug=f"spread-{n}", updated_at=start + dt.timedelta(days=n)) for n in range(count)
    )


def test_most_rows_on_one_day_are_warned_about(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    # 600 rows on 2024-03-05 in UTC, whatever their hour; 400 on days of their own.
    touched = dt.datetime(2024, 3, 5, tzinfo=UTC)
    bulk_articles(300, updated_at=touched)
    bulk_articles(300, updated_at=touched + dt.timedelta(hours=23, minutes=59))
    bulk_articles(5, updated_at=None)  # no date: not counted
    spread(400)
    build(out)
    assert warnings(caplog) == [
        TOUCHED.format(rows="600", dated="1,000", share=60, day="2024-03-05")
    ]
    # A build that renders nothing of the section does not count again.
    caplog.clear()
    build(out)
    assert warnings(caplog) == []


def test_a_refresh_does_not_count_the_sections_days(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    bulk_articles(600, updated_at=dt.datetime(2024, 3, 5, tzinfo=UTC))
    spread(400)
    build(out)
    caplog.clear()
    with override_settings(SITEMAPKIT_CHANGES="record"):
        article = Article.objects.get(slug="spread-3")
        article.slug = "renamed"
        article.save()
        with CaptureQueriesContext(connection) as queries:
            assert refresh_changes(output=str(out)).records == 1
    # Its query reads every row of the section; the builds between refreshes warn.
    assert [q for q in queries.captured_queries if "_sitemapkit_day" in q["sql"]] == []
    assert warnings(caplog) == []


@pytest.mark.parametrize(
    ("touched", "others"), [(500, 500), (999, 0)], ids=["half", "fewer-than-1000"]
)
def test_half_the_rows_or_fewer_than_a_thousand_are_not(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture, touched: int, others: int
) -> None:
    sources(ArticleSource)
    bulk_articles(touched, updated_at=dt.datetime(2024, 3, 5, tzinfo=UTC))
    spread(others)
    with CaptureQueriesContext(connection) as queries:
        build(out)
    assert warnings(caplog) == []
    # No query over the rows' days: the build rendered the whole section and counted
    # them on the way (tests/test_build_dates_counted.py).
    assert [q for q in queries.captured_queries if "_sitemapkit_day" in q["sql"]] == []


class ByDay(ArticleSource):
    lastmod = "published_on"


def test_a_date_field_counts_its_days(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ByDay)
    bulk_articles(1_000, published_on=dt.date(2024, 3, 5))
    build(out)
    assert warnings(caplog) == [
        TOUCHED.format(rows="1,000", dated="1,000", share=100, day="2024-03-05")
    ]
