"""refresh.py and touched.py through ``build_sitemaps --changed``: each committed change
reaches the files the views serve after one refresh, IndexNow is sent exactly the
URLs that changed, and the refresh reads only the shards the records touch."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from commands import outcome
from django.db import connection, transaction
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from indexnow_endpoint import Endpoint
from sitemap_xml import parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.refresh import Refreshed, refresh_changes
from django_sitemapkit.changes import records
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db(transaction=True)
SITE = "https://www.example.com"
EARLIER = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
LATER = dt.datetime(2025, 1, 2, tzinfo=dt.timezone.utc)
Sources = Callable[..., None]


class TenPerPage(ArticleSource):
    limit = 10


class ByTitle(ArticleSource):
    """Ordered by a column: a new title moves a row between shards."""

    name = "by-title"
    ordering = ("title",)
    limit = 10


@pytest.fixture
def project(sources: Sources, endpoint: Endpoint, out: Path) -> Iterator[Endpoint]:
    """Thirty articles in three shards of each section, built once and served from
    the files, with the changes recorded from now on."""
    sources(TenPerPage, ByTitle, PagesSource)
    bulk_articles(30, updated_at=EARLIER)
    for number, article in enumerate(Article.objects.order_by("pk")):
        # Titles in the order of the rows, two letters each: "aa", "ab", ...
        article.title = chr(97 + number // 26) + chr(97 + number % 26)
        Article.objects.filter(pk=article.pk).update(title=article.title)
    settings = override_settings(
        SITEMAPKIT_OUTPUT_DIR=str(out), SITEMAPKIT_SERVE="files", SITEMAPKIT_CHANGES="record"
    )
    with settings:
        assert outcome("build_sitemaps")[2] == 0
        yield endpoint


def served() -> dict[str, list[str]]:
    """Each page the views serve from the files, with the URLs it lists."""
    client = Client()
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    pages = {}
    for loc, _ in parse_index(b"".join(response.streaming_content)):
        page = client.get(loc.removeprefix(SITE))
        assert page.status_code == 200
        pages[loc.removeprefix(f"{SITE}/")] = [
            url.loc for url in parse_urlset(b"".join(page.streaming_content))
        ]
    return pages


def loc(slug: str) -> str:
    return f"{SITE}/articles/{slug}/"


def sent(endpoint: Endpoint) -> list[list[str]]:
    return [request.json["urlList"] for request in endpoint.received]


def changed(**options: object) -> tuple[str, str, int]:
    return outcome("build_sitemaps", changed=True, **options)


def test_an_update_of_a_slug_reaches_the_served_files_and_indexnow(project: Endpoint) -> None:
    article = Article.objects.get(title="ab")
    old = article.slug
    article.slug = "renamed"
    article.save()
    stdout, stderr, code = changed()
    assert (stderr, code) == ("", 0)
    pages = served()
    assert loc("renamed") in pages["sitemap-articles-1.xml"]
    assert loc("renamed") in pages["sitemap-by-title-1.xml"]
    assert not any(loc(old) in urls for urls in pages.values())
    assert sent(project) == [sorted([loc(old), loc("renamed")])]
    assert records.pending(10).ids == []
    assert stdout.splitlines()[-1] == "Applied 1 change record(s)."
