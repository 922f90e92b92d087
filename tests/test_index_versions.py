"""The database-served index with SITEMAPKIT_CHANGES (django_sitemapkit/changes/index.py,
sources/versioned.py): a 304 from the change record's version alone, and a full index
that reads only the pages whose rows changed, byte for byte what the whole reading
gives."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import pytest
from django.contrib.sites.models import Site
from django.db import connection, transaction
from django.test import Client, override_settings
from django.utils import timezone
from factories import ArticleFactory
from sitemap_xml import fetch
from testapp.models import Article
from versioned_index import ARTICLES, at, queried, reads_articles, walked, whole

from django_sitemapkit import SitemapSource, changed
from django_sitemapkit.changes import index, records
from django_sitemapkit.models import Change

pytestmark = pytest.mark.django_db(transaction=True)


class Articles(SitemapSource):
    """Three rows a page, in primary key order."""

    name = "articles"
    queryset = Article.objects.filter(published=True)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 3


class ByPublished(SitemapSource):
    """Ordered by a column and the primary key: a row moves when ``published`` changes."""

    name = "by-published"
    queryset = Article.objects.all()
    ordering = ("published", "pk")
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 3


@pytest.fixture(autouse=True)
def recording(sources: Callable[..., None]) -> Iterator[None]:
    sources(Articles, ByPublished)
    with override_settings(SITEMAPKIT_CHANGES="record"):
        yield


@pytest.fixture
def articles() -> list[Article]:
    """Ten rows: four pages of each section."""
    return [ArticleFactory.create(slug=f"a{n}", updated_at=at(n + 1)) for n in range(10)]


@pytest.mark.parametrize("path", ["/sitemap.xml", "/sitemap.html"])
def test_a_304_reads_only_the_version(client: Client, articles: list[Article], path: str) -> None:
    urls = "testapp.urls_html" if path.endswith("html") else "testapp.urls"
    with override_settings(ROOT_URLCONF=urls):
        etag = fetch(client, path)[2]["ETag"]
        # A new process: nothing kept, the version alone answers.
        index.clear_cache()
        status, body, statements = queried(client, path, **{"if-none-match": etag})
    assert (status, body) == (304, b"")
    assert len(statements) == 1
    assert "sitemapkit_change" in statements[0]
    assert reads_articles(statements) == []


def test_the_etag_moves_on_a_committed_change_and_not_on_a_rolled_back_one(
    client: Client, articles: list[Article]
) -> None:
    first = fetch(client, "/sitemap.xml")[2]["ETag"]
    with transaction.atomic():
        articles[4].title = "rolled back"
        articles[4].save()
        transaction.set_rollback(True)
    assert fetch(client, "/sitemap.xml", **{"if-none-match": first})[0] == 304
    # A new title: the aggregate (count, highest key, newest lastmod) is as it was.
    articles[4].title = "committed"
    articles[4].save()
    status, _, headers = fetch(client, "/sitemap.xml", **{"if-none-match": first})
    assert status == 200
    assert headers["ETag"] != first


def test_a_save_reads_only_its_pages_range(client: Client, articles: list[Article]) -> None:
    fetch(client, "/sitemap.xml")
    articles[4].updated_at = at(28)
    articles[4].save()
    status, body, statements = queried(client)
    assert status == 200
    assert body == whole(client)
    # The version, then the records since with it; for each section one aggregate
    # over the range of page 2, and for the section ordered by a column first
    # where the row is in that order (by primary key).
    reads = reads_articles(statements)
    assert len(statements) == 2 + len(reads)
    by_pk, where, by_published = (sql.replace("`", '"') for sql in reads)
    table = connection.ops.quote_name(ARTICLES).replace("`", '"')
    assert (by_pk.count("COUNT("), by_published.count("COUNT("), where.count("COUNT(")) == (1, 1, 0)
    assert "LIMIT" not in by_pk
    assert "LIMIT" not in by_published
    assert f'{table}."id" > {articles[2].pk}' in by_pk
    assert f'NOT ({table}."id" > {articles[5].pk})' in by_pk
    assert f'{table}."id" IN ({articles[4].pk})' in where


def test_an_append_reads_the_last_page_only(client: Client, articles: list[Article]) -> None:
    fetch(client, "/sitemap.xml")
    ArticleFactory.create(slug="new", updated_at=at(20))
    status, body, statements = queried(client)
    assert body == whole(client)
    # Page 4 of articles held one row: now two, and no later page moved; the
    # section ordered by published reads where the new row is, then its last page.
    assert status == 200
    assert [sql.count("COUNT(") for sql in reads_articles(statements)] == [1, 0, 1]


def test_an_insert_and_a_delete_in_the_middle_shift_the_later_pages(
    client: Client, articles: list[Article]
) -> None:
    fetch(client, "/sitemap.xml")
    articles[1].delete()
    articles[7].published = False
    articles[7].save()
    assert fetch(client, "/sitemap.xml")[1] == whole(client)
    index.clear_cache()
    fetch(client, "/sitemap.xml")
    articles[0].published = False
    articles[0].save()
    ArticleFactory.create(slug="late", updated_at=at(1))
    assert fetch(client, "/sitemap.xml")[1] == whole(client)


def test_an_update_and_changed_move_it(client: Client, articles: list[Article]) -> None:
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    Article.objects.filter(pk=articles[2].pk).update(updated_at=at(29))
    # Nobody recorded it: the index is what it was until the next period.
    assert fetch(client, "/sitemap.xml", **{"if-none-match": etag})[0] == 304
    changed(Article.objects.filter(pk=articles[2].pk))
    status, body, headers = fetch(client, "/sitemap.xml", **{"if-none-match": etag})
    assert (status, headers["ETag"] != etag) == (200, True)
    assert body == whole(client)
    assert b"2024-03-29T12:00:00+00:00" in body


def test_records_applied_in_between_are_still_read(client: Client, articles: list[Article]) -> None:
    fetch(client, "/sitemap.xml")
    articles[4].updated_at = at(27)
    articles[4].save()
    records.applied(records.pending(100).ids)
    status, body, statements = queried(client)
    assert body == whole(client)
    # Kept an hour after a refresh applied them (records.KEEP_APPLIED): the
    # changed page of each section, walked.
    assert (status, walked(statements)) == (200, 2)


def test_records_deleted_in_between_read_every_page_again(
    client: Client, articles: list[Article]
) -> None:
    fetch(client, "/sitemap.xml")
    articles[4].updated_at = at(27)
    articles[4].save()
    records.applied(records.pending(100).ids)
    Change.objects.update(applied=timezone.now() - records.KEEP_APPLIED - dt.timedelta(seconds=1))
    records.applied([])  # deletes those applied more than KEEP_APPLIED ago
    assert not Change.objects.exists()
    status, body, statements = queried(client)
    assert body == whole(client)
    # Four pages of each section, walked.
    assert (status, walked(statements)) == (200, 8)


def test_a_record_committed_below_the_id_last_seen_reads_every_page_again(
    client: Client, articles: list[Article]
) -> None:
    seen = Change.objects.latest("id").id
    Change.objects.filter(id=seen).update(id=seen + 10)
    fetch(client, "/sitemap.xml")
    Article.objects.filter(pk=articles[0].pk).update(updated_at=at(26))
    # Committed after the index read id seen + 10, with an id below it.
    Change.objects.create(id=seen + 5, model="testapp.article", row=str(articles[0].pk))
    status, body, statements = queried(client)
    assert body == whole(client)
    assert b"2024-03-26T12:00:00+00:00" in body
    assert (status, walked(statements)) == (200, 8)


def test_a_change_to_every_row_reads_every_page_again(
    client: Client, articles: list[Article]
) -> None:
    fetch(client, "/sitemap.xml")
    Article.objects.update(updated_at=at(25))
    changed(Article)
    assert fetch(client, "/sitemap.xml")[1] == whole(client)


def test_without_the_record_the_index_reads_the_aggregates(
    client: Client, articles: list[Article]
) -> None:
    with override_settings(SITEMAPKIT_CHANGES=None):
        etag = fetch(client, "/sitemap.xml")[2]["ETag"]
        _, _, statements = queried(client, **{"if-none-match": etag})
    assert len(reads_articles(statements)) == 2
    assert all("sitemapkit_change" not in sql for sql in statements)


def test_a_period_of_zero_reads_the_aggregates(client: Client, articles: list[Article]) -> None:
    with override_settings(SITEMAPKIT_FULL_BUILD_EVERY=dt.timedelta(0)):
        etag = fetch(client, "/sitemap.xml")[2]["ETag"]
        _, _, statements = queried(client, **{"if-none-match": etag})
    assert len(reads_articles(statements)) == 2


def test_a_304_of_a_site_of_the_sites_framework_reads_its_site_and_the_version(
    client: Client, articles: list[Article]
) -> None:
    Site.objects.update_or_create(pk=1, defaults={"domain": "www.example.com"})
    with override_settings(SITEMAPKIT_SITES="django.contrib.sites"):
        etag = fetch(client, "/sitemap.xml", host="www.example.com")[2]["ETag"]
        index.clear_cache()
        status, _, statements = queried(
            client, **{"host": "www.example.com", "if-none-match": etag}
        )
    # The site chosen by its host, as for every request, then the version.
    assert status == 304
    assert [(Site._meta.db_table in sql, "sitemapkit_change" in sql) for sql in statements] == [
        (True, False),
        (False, True),
    ]
