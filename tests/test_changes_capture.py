"""Change capture (django_sitemapkit/changes/capture.py, watch.py): what a committed
save or delete records, read back from the table as a refresh reads it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from testapp.models import Article, Category, Clip, Photo

from django_sitemapkit import Related, SitemapSource, changed
from django_sitemapkit.changes import records
from django_sitemapkit.changes.records import Changed
from django_sitemapkit.models import Change

pytestmark = pytest.mark.django_db(transaction=True)
ARTICLE = "testapp.article"


class Articles(SitemapSource):
    name = "articles"
    queryset = Article.objects.filter(published=True)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}


class ByTitle(SitemapSource):
    """Ordered by a column: a row moves when its title changes."""

    name = "by-title"
    queryset = Article.objects.all()
    ordering = ("title",)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    images = Related("photos", loc="url")
    depends_on = {Category: "category", "testapp.Clip": "clips"}


@pytest.fixture(autouse=True)
def capturing(sources: Callable[..., None]) -> Iterator[None]:
    sources(Articles, ByTitle)
    with override_settings(SITEMAPKIT_CHANGES="record"):
        yield


def recorded() -> list[Changed]:
    """The pending records, read back, without their ids."""
    return [
        Changed(0, c.model, c.row, c.befores, c.placed, c.saves)
        for c in records.pending(1000).changes
    ]


def test_insert_update_and_delete_each_record_their_row() -> None:
    article = Article.objects.create(slug="a", title="m")
    assert recorded() == [Changed(0, ARTICLE, article.pk)]
    article.slug = "b"
    article.save()
    # The row's pending record, written again: one record of two changes.
    assert recorded() == [Changed(0, ARTICLE, article.pk, saves=2)]
    pk = article.pk
    article.delete()
    # Deleted: where it was, for the section ordered by title.
    assert recorded() == [Changed(0, ARTICLE, pk, ({"title": "m"},), saves=3)]


def test_a_move_in_a_sections_order_records_where_the_row_was() -> None:
    Article.objects.create(slug="a", title="m")
    article = Article.objects.get()
    article.title = "z"
    article.save()
    article.title = "zz"
    article.save()
    # Where it was before each move (the second from where the first put it): a refresh
    # renders both.
    assert recorded() == [
        Changed(0, ARTICLE, article.pk, ({"title": "m"}, {"title": "z"}), saves=3)
    ]


def test_an_instance_saved_without_being_loaded_is_not_placed() -> None:
    pk = Article.objects.create(slug="a", title="m").pk
    Article(pk=pk, slug="a", title="q").save()
    assert recorded() == [Changed(0, ARTICLE, pk, placed=False, saves=2)]


def test_a_rolled_back_change_records_nothing() -> None:
    with transaction.atomic():
        Article.objects.create(slug="a")
        transaction.set_rollback(True)
    kept = Article.objects.create(slug="b")
    with transaction.atomic(), transaction.atomic():
        Article.objects.create(slug="c")
        transaction.set_rollback(True)
    assert recorded() == [Changed(0, ARTICLE, kept.pk)]


def test_related_rows_record_the_row_they_belong_to() -> None:
    first = Article.objects.create(slug="a", title="m")
    second = Article.objects.create(slug="b", title="n")
    Change.objects.all().delete()
    photo = Photo.objects.create(article=first, url="/p.jpg")  # images = Related("photos")
    clip = Clip.objects.create(article=first, thumbnail="/t.jpg", title="t", description="d")
    photo = Photo.objects.get(pk=photo.pk)
    photo.article = second
    photo.save()
    clip.delete()
    # The photo moved from one article to the other: both; the first's four changes in
    # one record.
    assert recorded() == [Changed(0, ARTICLE, second.pk), Changed(0, ARTICLE, first.pk, saves=4)]


def test_a_model_reached_by_a_lookup_records_its_own_row() -> None:
    category = Category.objects.create(slug="c", name="C")
    assert recorded() == [Changed(0, "testapp.category", category.pk)]


def test_models_no_section_reads_record_nothing() -> None:
    with override_settings(SITEMAPKIT_CHANGES=None):
        Article.objects.create(slug="a")
    assert recorded() == []


def test_changed_records_what_no_signal_tells() -> None:
    first = Article.objects.create(slug="a")
    Change.objects.all().delete()
    Article.objects.filter(pk=first.pk).update(slug="b")
    assert changed(Article.objects.filter(pk=first.pk)) == 1
    assert changed(Article) == 1
    assert changed([first]) == 1
    assert changed([]) == 0
    # A change of one row, then of every row (which the next save of a row joins).
    assert recorded() == [Changed(0, ARTICLE, None, saves=3)]


def test_a_save_adds_a_take_and_an_insert_to_its_transaction() -> None:
    article = Article.objects.create(slug="a", title="m")
    with CaptureQueriesContext(connection) as queries:
        article.slug = "b"
        article.save()
    # Django 5.2 logs the transaction's own statements too (BEGIN, COMMIT).
    statements = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].split()[0] not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")
    ]
    # The row's pending record (its insert's) taken, and written again; on MySQL and
    # MariaDB read, then locked unless another transaction holds it, then deleted.
    take = ["SELECT", "SELECT", "DELETE"] if connection.vendor == "mysql" else ["DELETE"]
    assert [sql.split()[0] for sql in statements] == ["UPDATE", *take, "INSERT"]
    assert all("sitemapkit_change" in sql for sql in statements[1:])


def test_records_that_do_not_fit_are_read_as_every_row(caplog: Any) -> None:
    Change.objects.create(model=ARTICLE, row='"seven"')
    Change.objects.create(model=ARTICLE, row="1", before='{"nope": 1}')
    Change.objects.create(model="gone.model", row="1")
    assert recorded() == [
        Changed(0, ARTICLE, None, placed=False),
        Changed(0, ARTICLE, None, placed=False),
        Changed(0, "gone.model", None, placed=False),
    ]
    assert [r.getMessage() for r in caplog.records] == [
        f"Change record {Change.objects.order_by('id')[0].id} of 'testapp.article' cannot be "
        "read ('seven' is no value of testapp.Article.id): the sections that read the model "
        "are rendered again whole.",
        f"Change record {Change.objects.order_by('id')[1].id} of 'testapp.article' cannot be "
        "read ('nope' is no column of testapp.Article): the sections that read the model are "
        "rendered again whole.",
        f"Change record {Change.objects.order_by('id')[2].id} names 'gone.model', which is no "
        "installed model: left out.",
    ]


def test_the_version_moves_with_every_committed_record_and_never_comes_back() -> None:
    seen = [records.version()]
    Article.objects.create(slug="a")
    seen.append(records.version())
    Article.objects.create(slug="b")
    seen.append(records.version())
    records.applied(records.pending(1).ids)
    seen.append(records.version())
    Article.objects.create(slug="c")
    seen.append(records.version())
    assert seen == [0, 1, 2, 2, 3]


def test_applied_records_are_kept_an_hour_then_deleted() -> None:
    first = Article.objects.create(slug="a")
    second = Article.objects.create(slug="b")
    records.applied(records.pending(1).ids)
    assert recorded() == [Changed(0, ARTICLE, second.pk)]
    assert Change.objects.count() == 2
    assert records.version() == 2
    Change.objects.filter(row=str(first.pk)).update(
        applied=timezone.now() - records.KEEP_APPLIED - dt.timedelta(seconds=1)
    )
    records.applied([])
    assert list(Change.objects.values_list("row", flat=True)) == [str(second.pk)]
    assert records.version() == 2
