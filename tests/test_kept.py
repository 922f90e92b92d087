"""A page after the first starts at a key kept under the section's validator
(``sources/kept.py``): filled by the first seek or the index's walk, never read
again once a change the validator shows has been made, and the page's bytes and
validators always those of a page sought afresh."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from sitemap_xml import fetch
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.sources import lastmods

pytestmark = pytest.mark.django_db

Sources = Callable[..., None]
PAGE_3 = "/sitemap-every-3.xml"


class SmallPages(ArticleSource):
    """Published articles, two a page: a filter a save can take a row out of."""

    limit = 2


class Every(SmallPages):
    """Every article, in primary key order: its pages' starts are kept without the record."""

    name = "every"
    queryset = Article.objects.all()


class ByTitle(Every):
    # A key of two columns: a save moves a row along it with nothing else changed.
    name = "bytitle"
    ordering = ["title"]


def at(day: int) -> dt.datetime:
    return dt.datetime(2024, 3, day, 12, tzinfo=dt.timezone.utc)


@pytest.fixture
def articles(sources: Sources) -> list[Article]:
    sources(SmallPages, Every, ByTitle)
    bulk_articles(9)
    found = list(Article.objects.order_by("pk"))
    for number, article in enumerate(found, 1):
        article.title = f"{number:02}"
        article.updated_at = at(number)
        article.save()
    return found


def served(client: Client, path: str) -> tuple[int, bytes, str | None]:
    status, body, headers = fetch(client, path)
    return status, body, headers.get("ETag")


def afresh(client: Client, path: str) -> tuple[int, bytes, str | None]:
    """The document as a process that has kept nothing serves it: sought by offset."""
    lastmods.clear_cache()  # every section's kept pages (sources/kept.py)
    return served(client, path)


def statements(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert fetch(client, path)[0] == 200
    return [query["sql"] for query in queries.captured_queries]


def test_a_page_sought_once_is_read_again_without_an_offset(
    client: Client, articles: list[Article]
) -> None:
    first = statements(client, PAGE_3)
    assert ["OFFSET" in sql for sql in first].count(True) == 1  # the first seek
    again = statements(client, PAGE_3)
    assert not [sql for sql in again if "OFFSET" in sql]
    assert served(client, PAGE_3) == afresh(client, PAGE_3)


def test_the_index_walk_keeps_every_page_s_start(client: Client, articles: list[Article]) -> None:
    assert fetch(client, "/sitemap.xml")[0] == 200
    for page in (2, 3, 4):
        assert not [
            sql for sql in statements(client, f"/sitemap-every-{page}.xml") if "OFFSET" in sql
        ]


@pytest.mark.parametrize("section", ["articles", "bytitle"])
def test_without_the_record_a_filter_or_a_key_of_columns_is_sought_each_time(
    client: Client, articles: list[Article], section: str
) -> None:
    path = f"/sitemap-{section}-3.xml"
    assert fetch(client, "/sitemap.xml")[0] == 200
    assert fetch(client, path)[0] == 200
    assert [sql for sql in statements(client, path) if "OFFSET" in sql]


def insert(articles: list[Article]) -> None:
    Article.objects.create(slug="new", title="00", updated_at=at(1))


def update_newest(articles: list[Article]) -> None:
    Article.objects.filter(pk=articles[0].pk).update(updated_at=at(20))


def update_older(articles: list[Article]) -> None:
    Article.objects.filter(pk=articles[0].pk).update(updated_at=at(1) - dt.timedelta(days=9))


def delete(articles: list[Article]) -> None:
    Article.objects.filter(pk=articles[1].pk).delete()


def unpublish(articles: list[Article]) -> None:
    Article.objects.filter(pk=articles[0].pk).update(published=False)


def move_key(articles: list[Article]) -> None:
    Article.objects.filter(pk=articles[0].pk).update(title="99")


CHANGES = [insert, update_newest, update_older, delete, unpublish, move_key]


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("section", ["every", "articles", "bytitle"])
def test_after_a_change_each_document_is_the_one_read_afresh(
    client: Client, articles: list[Article], change: Callable[[list[Article]], None], section: str
) -> None:
    paths = [f"/sitemap-{section}-{page}.xml" for page in (2, 3, 4)]
    # A move along a key of other columns than the primary key moves none of the
    # section's count, highest key and newest lastmod: the index's kept lastmods
    # follow it only with the change record (docs/serving.md). The pages do.
    if change is not move_key:
        paths.insert(0, "/sitemap.xml")
    for path in paths:  # every start kept, by the walk and by the pages' seeks
        served(client, path)
    before = {path: afresh(client, path) for path in paths}
    for path in paths:
        served(client, path)
    change(articles)
    after = {path: served(client, path) for path in paths}
    for path in paths:
        now = after[path]
        assert now[0] == 200, path
        assert now == afresh(client, path), path
        # A document whose bytes changed has a new validator, as when read afresh.
        if now[1] != before[path][1]:
            assert now[2] != before[path][2], path
