"""A section's validator in one statement of three scalar subqueries (``sources/summary.py``):
the values of the one aggregate it replaces, each asked alone.

The module is imported in the tests that call it, so that the first test runs, and
fails, where the index's validator is still one aggregate."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.db.models import Count, Max
from django.test import Client
from django.test.utils import CaptureQueriesContext
from factories import bulk_articles
from plans import query_pager
from sitemap_xml import fetch
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit.sources.plan import compile_plan

pytestmark = pytest.mark.django_db

Sources = Callable[..., None]


def test_the_index_s_304_asks_each_value_alone(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    bulk_articles(5)
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    table = connection.ops.quote_name(Article._meta.db_table)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/sitemap.xml", headers={"if-none-match": etag}).status_code == 304
    (statement,) = [query["sql"] for query in queries.captured_queries if table in query["sql"]]
    # No COUNT() beside a MAX() in one select list, which reads every row: a bare
    # COUNT(*) (SQLite counts its index's cells) and two MAX() an index answers.
    assert statement.startswith("SELECT (SELECT COUNT(*) AS ")
    assert statement.count("(SELECT MAX(") == 2
    assert statement.count("COUNT(") == 1


def test_the_values_are_the_aggregate_s() -> None:
    from django_sitemapkit.sources.summary import summary

    bulk_articles(4)
    bulk_articles(2, published=False)
    for queryset, path in [
        (Article.objects.filter(published=True), "updated_at"),
        (Article.objects.filter(published=False), "published_on"),
        (Article.objects.filter(slug="none such"), "updated_at"),
        (Article.objects.all(), None),
    ]:
        stats = queryset.aggregate(rows=Count("pk"), last=Max("pk"), lastmod=Max(path or "pk"))
        assert summary(queryset, path, section="articles") == (
            stats["rows"],
            stats["last"],
            stats["lastmod"] if path else None,
        )
    assert summary(Article.objects.none(), "updated_at", section="articles") == (0, None, None)


def test_a_query_of_groups_keeps_the_aggregate() -> None:
    from django_sitemapkit.sources.summary import separable

    bulk_articles(3)
    assert not separable(Article.objects.distinct(), "updated_at")
    grouped = Article.objects.values("title").annotate(rows=Count("pk"))
    assert not separable(grouped, "updated_at")
    assert not separable(Article.objects.all(), "category__name")
    assert separable(Article.objects.filter(published=True), "updated_at")
    assert separable(Article.objects.all(), None)
    pager = query_pager(compile_plan(ArticleSource()))
    stats = pager.section_stats()
    assert stats.fingerprint == (3, Article.objects.latest("pk").pk, stats.lastmod)
