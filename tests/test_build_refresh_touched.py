"""touched.py and placing.py: which shards the records of a refresh touch, for rows of
a related model, rows whose place is not known, descending keys, and keys the
database orders by a locale; and the progress a terminal shows."""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from commands import outcome
from django.core.management import call_command
from django.test import override_settings
from factories import bulk_articles
from testapp.models import Article, Category
from testapp.sitemaps import ArticleSource

from django_sitemapkit.build.placing import bisected, held, placed
from django_sitemapkit.changes import records
from django_sitemapkit.sources.keyset import KeyColumn

pytestmark = pytest.mark.django_db(transaction=True)
EARLIER = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
Sources = Callable[..., None]


class InCategory(ArticleSource):
    """Located by its category's slug, which the section reads through a lookup."""

    name = "in-category"
    url_name = "article-in-category"
    url_kwargs = {"category": "category__slug", "slug": "slug"}
    depends_on = {Category: "category"}
    limit = 10


class ByTitle(ArticleSource):
    name = "by-title"
    ordering = ("title",)
    limit = 10


@pytest.fixture
def recording(sources: Sources, out: Path) -> Iterator[Sources]:
    """``recording(*classes)``: the sources, then their changes recorded (the receivers
    are connected for the models of the sources registered when it is set)."""
    with ExitStack() as stack:

        def use(*classes: type[ArticleSource]) -> None:
            sources(*classes)
            stack.enter_context(
                override_settings(SITEMAPKIT_OUTPUT_DIR=str(out), SITEMAPKIT_CHANGES="record")
            )

        yield use


def changed(**options: object) -> tuple[str, str, int]:
    return outcome("build_sitemaps", changed=True, **options)


def test_a_related_row_touches_the_shards_of_the_rows_that_reach_it(
    recording: Sources, out: Path
) -> None:
    recording(InCategory)
    news, other = Category.objects.create(slug="news"), Category.objects.create(slug="other")
    rows = sorted(bulk_articles(30, updated_at=EARLIER, category=other), key=lambda a: a.pk)
    Article.objects.filter(pk__in=[a.pk for a in rows[12:15]]).update(category=news)
    assert outcome("build_sitemaps")[2] == 0
    records.applied(records.pending(100).ids)  # the categories' inserts, built
    news.slug = "latest"
    news.save()
    stdout, stderr, code = changed(dry_run=True)
    assert (stderr, code) == ("", 0)
    assert "  in-category: render 1 of 3 shard(s): sitemap-in-category-2.xml" in stdout
    assert changed()[1:] == ("", 0)
    page = (out / "sitemap-in-category-2.xml").read_text()
    assert page.count("/c/latest/") == 3
    assert "/c/news/" not in page


def test_a_row_saved_without_being_loaded_is_found_where_it_is_now(
    recording: Sources, out: Path
) -> None:
    recording(ByTitle)
    for number in range(30):
        Article.objects.create(slug=f"a{number}", title=f"t{number:02}", updated_at=EARLIER)
    assert outcome("build_sitemaps")[2] == 0
    records.applied(records.pending(100).ids)
    row = Article.objects.get(title="t15")
    # Made in the code, not loaded: where its title put it before is not known.
    Article(pk=row.pk, slug="renamed", title="t15", updated_at=EARLIER).save()
    stdout, stderr, code = changed(dry_run=True)
    assert (stderr, code) == ("", 0)
    # Compared as a build does, and the shard it is in now rendered whatever its stats.
    assert "  by-title: render 1 of 3 shard(s): sitemap-by-title-2.xml" in stdout
    assert changed()[1:] == ("", 0)
    assert "/articles/renamed/" in (out / "sitemap-by-title-2.xml").read_text()


def test_a_descending_key_is_bisected_backwards() -> None:
    key = [KeyColumn("title", True), KeyColumn("pk", False)]
    lows = [None, ("m", 5), ("c", 2)]
    keys = [("z", 1), ("m", 4), ("m", 5), ("d", 9), ("c", 2), ("a", 1)]
    assert [bisected(key, lows, [values]) for values in keys] == [
        {0},
        {0},
        {1},
        {1},
        {2},
        {2},
    ]


@pytest.mark.parametrize("descending", [False, True])
def test_the_database_places_rows_and_keys_as_it_orders_them(descending: bool) -> None:
    titles = ["apple", "Banana", "cherry", "Date", "elder", "Fig", "_under", "Éclair"]
    for title in titles:
        Article.objects.create(slug=title, title=title)
    key = [KeyColumn("title", descending), KeyColumn("pk", False)]
    ordering = ("-title" if descending else "title", "pk")
    ordered = list(Article.objects.order_by(*ordering).values_list("title", "pk"))
    lows = [None, ordered[2], ordered[4], ordered[6]]
    table = Article.objects.all()
    # Whatever the collation, each row (and each key, of a row gone) is in the shard
    # of its place in the database's order.
    assert {pk: held(table.filter(pk=pk), key, lows) for _, pk in ordered} == {
        pk: {pk: position // 2} for position, (_, pk) in enumerate(ordered)
    }
    assert [placed(Article, key, lows, [row], "default") for row in ordered] == [
        {position // 2} for position in range(len(ordered))
    ]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class HalfPerShard(ArticleSource):
    limit = 2_500


def test_a_terminals_bar_counts_the_rows_of_the_shards_it_renders(recording: Sources) -> None:
    recording(HalfPerShard)
    rows = sorted(bulk_articles(5_000, updated_at=EARLIER), key=lambda a: a.pk)
    assert outcome("build_sitemaps")[2] == 0
    article = Article.objects.get(pk=rows[-1].pk)
    article.slug = "renamed"
    article.save()
    stdout = Terminal()
    call_command("build_sitemaps", changed=True, stdout=stdout)
    output = stdout.getvalue()
    # Of the second shard's 2,500 rows, not the section's 5,000.
    assert re.search(r"\rarticles  \[#*-*\]  2,000/2,500 rows", output) is not None, output
    assert "\r\x1b[Karticles: 5,000 URLs in 2 files, 1 of 2 shard(s) rendered" in output
