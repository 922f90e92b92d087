"""sources/stored_lastmods.py: a lastmod the database gave that is no date costs its row
alone. The index, every page, the HTML pages for visitors and the build stay whole,
and a page and the index are dated by the newest lastmod that is a date."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sitemaps import GenericSitemap
from django.core.management import call_command
from django.db import connection
from django.test import Client, RequestFactory, override_settings
from factories import ArticleFactory
from sitemap_xml import Url, fetch, parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.compat import index, sitemap

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
UTC = dt.timezone.utc
Sources = Callable[..., None]


class SmallPages(ArticleSource):
    limit = 2


def day(number: int) -> dt.datetime:
    return dt.datetime(2024, 3, number, 12, tzinfo=UTC)


def written(number: int) -> str:
    return day(number).isoformat()


def store(article: Article, value: str) -> None:
    """Write ``value``, an SQL literal, into the article's lastmod column, as raw SQL can."""
    table = connection.ops.quote_name(Article._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET updated_at = {value} WHERE id = %s", [article.pk])


def refused(where: str, reason: str, instead: str) -> str:
    return (
        f"The newest lastmod of source 'articles' ({where}) is refused: {reason}; {instead}. "
        "Store a date or datetime in that row, or NULL."
    )


def stored_values() -> list[Any]:
    """(the SQL literal, why the row is skipped, the newest lastmod's warning but the key):
    the values each database can hold that its driver or Django cannot read as a date."""
    if connection.vendor == "sqlite":
        newest = "its page and the index are dated by the newest valid one, "
        return [
            pytest.param(
                "'not a date <&>'",
                "lastmod 'not a date <&>' is not a date or datetime",
                ("lastmod 'not a date <&>' is not a date or datetime", newest),
                id="text",
            ),
            pytest.param(
                "X'00ff'",
                "the database driver cannot read it (Could not decode to UTF-8 column "
                "'_sitemapkit_lastmod_text' with text '')",
                ("lastmod b'\\x00\\xff' is not a date or datetime", newest),
                id="blob",
            ),
        ]
    if connection.vendor == "postgresql":
        loaded = "its page and the index are dated by the newest it can load"
        return [
            pytest.param(
                "'infinity'",
                "lastmod 'infinity' is not a datetime Python can hold",
                (
                    "the database driver cannot load it (timestamp too large (after year 10K): "
                    "'infinity')",
                    loaded,
                ),
                id="infinity",
            ),
            pytest.param(
                "'12000-01-01 00:00:00+00'",
                "lastmod '12000-01-01 00:00:00+00' is not a datetime Python can hold",
                (
                    "the database driver cannot load it (timestamp too large (after year 10K): "
                    "'12000-01-01 00:00:00+00')",
                    loaded,
                ),
                id="year-12000",
            ),
        ]
    return []


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "django_sitemapkit" and r.levelname == "WARNING"
    ]


def aggregate_warning(bad: Article, value: tuple[str, str], newest: int) -> str:
    reason, instead = value
    if connection.vendor == "postgresql":
        return refused("column 'updated_at'", reason, instead)
    return refused(f"column 'updated_at', pk={bad.pk}", reason, instead + written(newest))


@pytest.mark.parametrize(("stored", "skipped", "newest"), stored_values())
def test_a_stored_lastmod_that_is_no_date_costs_its_row_alone(
    client: Client,
    sources: Sources,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    stored: str,
    skipped: str,
    newest: tuple[str, str],
) -> None:
    sources(SmallPages)
    articles = [ArticleFactory.create(slug=f"a{n}", updated_at=day(n)) for n in range(1, 6)]
    bad = articles[3]
    # The newest of its page, and of the section (a text sorts above every datetime in
    # SQLite, a blob above every text; infinity above every time).
    store(bad, stored)

    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    assert parse_index(body) == [
        (f"{SITE}/sitemap-articles-1.xml", written(2)),
        (f"{SITE}/sitemap-articles-2.xml", written(3)),
        (f"{SITE}/sitemap-articles-3.xml", written(5)),
    ]
    status, body, headers = fetch(client, "/sitemap-articles-2.xml")
    assert (status, headers["Last-Modified"]) == (200, "Sun, 03 Mar 2024 12:00:00 GMT")
    assert parse_urlset(body) == [Url(f"{SITE}/articles/a3/", written(3), "weekly", "0.6")]
    for page in (1, 3):
        assert fetch(client, f"/sitemap-articles-{page}.xml")[0] == 200
    with override_settings(ROOT_URLCONF="testapp.urls_html"):
        status, body, _ = fetch(client, "/sitemap.html")
        assert status == 200
        assert b'updated <time datetime="2024-03-05T12:00:00+00:00">' in body
        status, body, _ = fetch(client, "/sitemap-articles-1.html")
        assert status == 200
        assert b"/articles/a4/" not in body
        assert body.count(b"/articles/a") == 2 * 4  # a link: its href and its text

    out = tmp_path / "out"
    call_command("build_sitemaps", output=str(out), verbosity=0)
    built = [
        url.loc
        for page in (1, 2, 3)
        for url in parse_urlset((out / f"sitemap-articles-{page}.xml").read_bytes())
    ]
    assert built == [f"{SITE}/articles/a{n}/" for n in (1, 2, 3, 5)]
    assert parse_index((out / "sitemap.xml").read_bytes())[1] == (
        f"{SITE}/sitemap-articles-2.xml",
        written(3),
    )

    logged = warnings(caplog)
    # Logged by the index first, for the section's newest: the fifth day.
    expected = aggregate_warning(bad, newest, 5)
    assert set(logged) == {expected, f"Skipped pk={bad.pk} of source 'articles': {skipped}."}
    # Once for the process: the index and the page read it on every request.
    assert logged.count(expected) == 1


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite keeps any value in any column")
def test_no_valid_lastmod_among_the_newest_gives_no_lastmod(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    (bad,) = [ArticleFactory.create(slug="a1", updated_at=day(1))]
    store(bad, "'yesterday'")
    ArticleFactory.create(slug="a2", updated_at=None)
    status, body, headers = fetch(client, "/sitemap.xml")
    assert status == 200
    assert parse_index(body) == [(f"{SITE}/sitemap-articles-1.xml", None)]
    status, body, headers = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert "Last-Modified" not in headers
    assert parse_urlset(body) == [Url(f"{SITE}/articles/a2/", None, "weekly", "0.6")]
    assert warnings(caplog) == [
        refused(
            f"column 'updated_at', pk={bad.pk}",
            "lastmod 'yesterday' is not a date or datetime",
            "its page and the index have no lastmod, no other being valid",
        ),
        f"Skipped pk={bad.pk} of source 'articles': lastmod 'yesterday' is not a date or datetime.",
    ]


@pytest.mark.urls("testapp.urls_compat")
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite keeps any value in any column")
def test_the_drop_in_dates_a_generic_sitemap_by_its_newest_valid_date_field(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    articles = [ArticleFactory.create(slug=f"a{n}", updated_at=day(n)) for n in range(1, 4)]
    store(articles[2], "'not a date <&>'")
    generic = GenericSitemap(
        {"queryset": Article.objects.order_by("pk"), "date_field": "updated_at"}
    )
    sitemaps = {"generic": generic}
    response = index(rf.get("/sitemap.xml"), sitemaps, sitemap_url_name="compat-section")
    assert response.status_code == 200
    assert parse_index(response.content) == [  # type: ignore[attr-defined]
        (f"{SITE}/compat/sitemap-generic.xml", written(2))
    ]
    response = sitemap(rf.get("/sitemap-generic.xml"), sitemaps, section="generic")
    assert response.status_code == 200
    # contrib's reading of the item (Django reads that text as None) keeps its URL.
    assert [url.loc for url in parse_urlset(response.content)] == [  # type: ignore[attr-defined]
        f"{SITE}{article.get_absolute_url()}" for article in articles
    ]
    assert warnings(caplog)[0] == (
        f"The newest lastmod of source 'generic' (column 'updated_at', pk={articles[2].pk}) "
        "is refused: lastmod 'not a date <&>' is not a date or datetime; its page and the "
        f"index are dated by the newest valid one, {written(2)}. Store a date or datetime in "
        "that row, or NULL."
    )


class ByPublication(ArticleSource):
    lastmod = "published_on"


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite keeps any value in any column")
@pytest.mark.parametrize(
    ("stored", "skipped"),
    [
        ("X'00ff'", "lastmod b'\\x00\\xff' is not a date or datetime"),
        ("'2024-02-30'", "lastmod '2024-02-30' is not a valid datetime"),
        ("'not a date'", "lastmod 'not a date' is not a date or datetime"),
    ],
    ids=["blob", "no-such-day", "text"],
)
def test_a_date_column_sqlite_cannot_convert_costs_its_row_alone(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture, stored: str, skipped: str
) -> None:
    # sqlite3 converts a column declared "date" as it fetches it, before any reader
    # sees the value: one such row used to fail the whole page.
    sources(ByPublication)
    articles = [
        ArticleFactory.create(slug=f"a{n}", published_on=dt.date(2024, 3, n)) for n in (1, 2, 3)
    ]
    table = connection.ops.quote_name(Article._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET published_on = {stored} WHERE id = %s", [articles[1].pk]
        )
    status, body, _ = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert parse_urlset(body) == [
        Url(f"{SITE}/articles/a{n}/", f"2024-03-0{n}", "weekly", "0.6") for n in (1, 3)
    ]
    assert f"Skipped pk={articles[1].pk} of source 'articles': {skipped}." in warnings(caplog)
