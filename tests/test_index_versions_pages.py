"""A page after the first of a section the change record covers starts at a key kept
under the record's version (``changes/index.py``, ``page_validator()``): any section,
a filtered one and one ordered by columns too, read again without an offset until a
recorded change moves the version, and always the page a seek by offset gives."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from factories import ArticleFactory
from sitemap_xml import fetch
from testapp.models import Article

from django_sitemapkit import SitemapSource
from django_sitemapkit.changes import index
from django_sitemapkit.sources import lastmods

pytestmark = pytest.mark.django_db(transaction=True)


class Published(SitemapSource):
    name = "published"
    queryset = Article.objects.filter(published=True)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2


class ByTitle(Published):
    name = "bytitle"
    queryset = Article.objects.all()
    ordering = ["title"]


def at(day: int) -> dt.datetime:
    return dt.datetime(2024, 3, day, 12, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def recording(sources: Callable[..., None]) -> Iterator[None]:
    sources(Published, ByTitle)
    with override_settings(SITEMAPKIT_CHANGES="record"):
        yield


@pytest.fixture
def articles() -> list[Article]:
    return [
        ArticleFactory.create(slug=f"a{n}", title=f"{n:02}", updated_at=at(n + 1)) for n in range(9)
    ]


def offsets(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert fetch(client, path)[0] == 200
    return [query["sql"] for query in queries.captured_queries if "OFFSET" in query["sql"]]


def afresh(client: Client, path: str) -> tuple[int, bytes]:
    """The page as a process that has kept nothing, without the record, serves it."""
    lastmods.clear_cache()
    index.clear_cache()
    with override_settings(SITEMAPKIT_CHANGES=None):
        status, body, _ = fetch(client, path)
    lastmods.clear_cache()
    return status, body


@pytest.mark.parametrize("section", ["published", "bytitle"])
def test_a_page_is_sought_once_per_version(
    client: Client, articles: list[Article], section: str
) -> None:
    path = f"/sitemap-{section}-3.xml"
    assert len(offsets(client, path)) == 1
    assert offsets(client, path) == []
    articles[8].title = "new"
    articles[8].save()
    assert len(offsets(client, path)) == 1  # a new version: sought again


def insert(articles: list[Article]) -> None:
    ArticleFactory.create(slug="new", title="00", updated_at=at(1))


def delete(articles: list[Article]) -> None:
    articles[1].delete()


def unpublish(articles: list[Article]) -> None:
    articles[0].published = False
    articles[0].save()


def move_key(articles: list[Article]) -> None:
    articles[0].title = "99"
    articles[0].save()


def update_older(articles: list[Article]) -> None:
    articles[0].updated_at = at(1) - dt.timedelta(days=9)
    articles[0].save()


@pytest.mark.parametrize("change", [insert, delete, unpublish, move_key, update_older])
@pytest.mark.parametrize("section", ["published", "bytitle"])
def test_after_a_recorded_change_a_page_is_the_one_sought_afresh(
    client: Client, articles: list[Article], change: Callable[[list[Article]], None], section: str
) -> None:
    paths = [f"/sitemap-{section}-{page}.xml" for page in (2, 3, 4)]
    for path in paths:
        fetch(client, path)
    change(articles)
    served = {path: fetch(client, path)[:2] for path in paths}
    for path in paths:
        assert served[path] == afresh(client, path), path


@pytest.mark.parametrize("change", [insert, delete, unpublish, move_key, update_older])
@pytest.mark.parametrize("section", ["published", "bytitle"])
def test_the_index_keeps_every_page_s_start_at_its_version(
    client: Client, articles: list[Article], change: Callable[[list[Article]], None], section: str
) -> None:
    paths = [f"/sitemap-{section}-{page}.xml" for page in (2, 3, 4)]
    assert fetch(client, "/sitemap.xml")[0] == 200
    change(articles)
    # The index at the new version: walked again, or only the changed pages read.
    assert fetch(client, "/sitemap.xml")[0] == 200
    assert [offsets(client, path) for path in paths] == [[], [], []]
    served = {path: fetch(client, path)[:2] for path in paths}
    for path in paths:
        assert served[path] == afresh(client, path), path
