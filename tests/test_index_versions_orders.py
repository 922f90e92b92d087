"""The versioned index (django_sitemapkit/changes/index.py, sources/versioned.py) on
each kind of order a section may have, and on what the records cannot tell: each
change read as the whole reading gives it, byte for byte."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from django.test import Client, override_settings
from django.utils.http import http_date
from factories import ArticleFactory, CategoryFactory
from sitemap_xml import fetch
from testapp.models import Article, Category
from testapp.sitemaps import PagesSource
from versioned_index import at, queried, reads_articles, walked, whole

from django_sitemapkit import SitemapSource, changed
from django_sitemapkit.changes import index
from django_sitemapkit.models import Change

pytestmark = pytest.mark.django_db(transaction=True)
Sources = Callable[..., None]


class Newest(SitemapSource):
    """Newest primary key first, two rows a page."""

    name = "newest"
    queryset = Article.objects.all()
    ordering = ("-pk",)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2


class ByTitle(SitemapSource):
    """A text column first: where a row falls is the database's collation."""

    name = "by-title"
    queryset = Article.objects.all()
    ordering = ("title",)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2


class ByDate(SitemapSource):
    """A nullable column first: no seek key, the pages are numbered."""

    name = "by-date"
    queryset = Article.objects.all()
    ordering = ("-updated_at",)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2


class InCategory(SitemapSource):
    """Rows chosen through a related model."""

    name = "in-category"
    queryset = Article.objects.filter(category__name="listed")
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2
    depends_on = {Category: "category"}


class ByPublished(SitemapSource):
    name = "by-published"
    queryset = Article.objects.all()
    ordering = ("-published", "pk")
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    limit = 2


@pytest.fixture(autouse=True)
def recording() -> object:
    with override_settings(SITEMAPKIT_CHANGES="record"):
        yield


def created(count: int, **fields: object) -> list[Article]:
    return [
        ArticleFactory.create(slug=f"a{n}", title=f"t{n}", updated_at=at(n + 1), **fields)
        for n in range(count)
    ]


def test_newest_first_reads_the_page_of_each_change(client: Client, sources: Sources) -> None:
    sources(Newest)
    articles = created(7)
    fetch(client, "/sitemap.xml")
    articles[0].updated_at = at(20)
    articles[0].save()
    status, body, statements = queried(client)
    assert (status, body, walked(statements)) == (200, whole(client), 1)
    ArticleFactory.create(slug="newer", updated_at=at(21))
    articles[3].delete()
    status, body, statements = queried(client)
    # A row more in page 1's range: counted, then its four pages walked again.
    assert (status, body, walked(statements)) == (200, whole(client), 5)


def test_a_text_key_reads_the_section_again(client: Client, sources: Sources) -> None:
    sources(ByTitle)
    articles = created(5)
    fetch(client, "/sitemap.xml")
    articles[2].updated_at = at(20)
    articles[2].save()
    status, body, statements = queried(client)
    assert (status, body, walked(statements)) == (200, whole(client), 3)


def test_numbered_pages_are_read_again_at_a_new_version(client: Client, sources: Sources) -> None:
    sources(ByDate)
    articles = created(5)
    fetch(client, "/sitemap.xml")
    articles[2].updated_at = at(20)
    articles[2].save()
    status, body, statements = queried(client)
    assert (status, body) == (200, whole(client))
    assert any("ROW_NUMBER()" in sql for sql in reads_articles(statements))


def test_a_change_through_a_lookup_reads_the_section_again(
    client: Client, sources: Sources
) -> None:
    sources(InCategory)
    listed, other = CategoryFactory.create(name="listed"), CategoryFactory.create(name="other")
    created(3, category=listed)
    created(2, category=other)
    fetch(client, "/sitemap.xml")
    other.name = "listed"
    other.save()
    status, body, statements = queried(client)
    assert (status, body, walked(statements)) == (200, whole(client), 3)


def test_a_row_saved_without_being_loaded_reads_the_section_again(
    client: Client, sources: Sources
) -> None:
    sources(ByPublished)
    articles = created(5)
    fetch(client, "/sitemap.xml")
    # Where its key put it before is not known (records.UNKNOWN).
    Article(pk=articles[1].pk, slug="a1", title="t1", published=False, updated_at=at(2)).save()
    status, body, statements = queried(client)
    assert (status, body, walked(statements)) == (200, whole(client), 3)


def test_a_section_emptied_and_filled_again(client: Client, sources: Sources) -> None:
    sources(Newest)
    articles = created(3)
    fetch(client, "/sitemap.xml")
    articles[0].delete()
    assert fetch(client, "/sitemap.xml")[1] == whole(client)
    for article in articles[1:]:
        article.delete()
    assert fetch(client, "/sitemap.xml")[0] == 404
    ArticleFactory.create(slug="again", updated_at=at(9))
    assert fetch(client, "/sitemap.xml")[1] == whole(client)


def test_a_section_the_record_does_not_cover_is_read_as_before(
    client: Client, sources: Sources
) -> None:
    sources(Newest, PagesSource)
    created(3)
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    index.clear_cache()
    status, _, statements = queried(client, **{"if-none-match": etag})
    # The static section asks nothing of the database: the version alone.
    assert (status, len(statements)) == (304, 1)
    assert "sitemapkit_change" in statements[0]


def test_kept_sections_give_a_304_its_last_modified(client: Client, sources: Sources) -> None:
    sources(Newest)
    created(3)
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    response = client.get("/sitemap.xml", headers={"if-none-match": etag})
    assert (response.status_code, response.headers["Last-Modified"]) == (
        304,
        http_date(at(3).timestamp()),
    )
    index.clear_cache()
    response = client.get("/sitemap.xml", headers={"if-none-match": etag})
    assert (response.status_code, response.headers.get("Last-Modified")) == (304, None)


def test_if_modified_since_alone_reads_the_sections(client: Client, sources: Sources) -> None:
    sources(Newest)
    created(3)
    fetch(client, "/sitemap.xml")
    index.clear_cache()
    status, _, statements = queried(client, **{"if-modified-since": http_date(at(3).timestamp())})
    assert (status, walked(statements)) == (304, 2)


def test_a_change_nobody_recorded_shows_in_the_next_period(
    client: Client, sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources(Newest)
    articles = created(3)
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    Article.objects.filter(pk=articles[0].pk).update(updated_at=at(24))
    assert fetch(client, "/sitemap.xml", **{"if-none-match": etag})[0] == 304
    later = time.time() + dt.timedelta(days=1).total_seconds()
    monkeypatch.setattr(index, "time", SimpleNamespace(time=lambda: later))
    status, body, headers = fetch(client, "/sitemap.xml", **{"if-none-match": etag})
    assert (status, headers["ETag"] != etag, body) == (200, True, whole(client))
    assert b"2024-03-24T12:00:00+00:00" in body


class Nothing(SitemapSource):
    name = "nothing"
    queryset = Article.objects.none()
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}


def test_a_record_of_a_model_no_section_reads_reads_no_page(
    client: Client, sources: Sources
) -> None:
    sources(Newest, Nothing)
    created(3)
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    changed(CategoryFactory.create())
    status, body, statements = queried(client, **{"if-none-match": etag})
    assert (status, body, walked(statements)) == (200, whole(client), 0)


def test_sections_beyond_those_kept_are_read_again(
    client: Client, sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources(Newest, ByPublished)
    created(3)
    monkeypatch.setattr(index, "CACHED_SECTIONS", 1)
    fetch(client, "/sitemap.xml")
    # Only the last section read is kept: the first is read again whole.
    status, body, statements = queried(client)
    assert (status, body, walked(statements)) == (200, whole(client), 2)


@pytest.mark.parametrize(
    ("before", "pages"),
    [
        # As a delete records it: its last page alone is read.
        ('{"published": true}', 2),
        # Written by a release whose key was the title: its three pages walked.
        ('{"title": "t6"}', 3),
        # Gone, and where it was not recorded (a changed() after a raw delete).
        (None, 3),
    ],
)
def test_a_row_whose_place_is_not_known_reads_the_section_again(
    client: Client, sources: Sources, before: str | None, pages: int
) -> None:
    sources(ByPublished)
    articles = created(7)
    fetch(client, "/sitemap.xml")
    pk = articles[6].pk
    with override_settings(SITEMAPKIT_CHANGES=None):
        articles[6].delete()
    Change.objects.create(model="testapp.article", row=str(pk), before=before)
    status, body, statements = queried(client)
    # The last page's range counted, then the walk from there finds no row; or
    # the section's three pages walked.
    assert (status, body, walked(statements)) == (200, whole(client), pages)


class NewestPublished(Newest):
    """``Newest`` after a release that dates its rows by another column."""

    lastmod = "published_on"


def test_a_new_declaration_is_a_new_etag(client: Client, sources: Sources) -> None:
    sources(Newest)
    created(3, published_on=dt.date(2024, 3, 1))
    etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    sources(NewestPublished)
    status, body, headers = fetch(client, "/sitemap.xml", **{"if-none-match": etag})
    assert (status, headers["ETag"] != etag, body) == (200, True, whole(client))
    assert b"<lastmod>2024-03-01</lastmod>" in body
