from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.db import connection
from django.db.models import Max
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from factories import ArticleFactory, bulk_articles
from plans import entries_of, page_rows, query_pager
from sitemap_xml import parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit import SitemapSource
from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.sources.keyset import KeyColumn
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import RowShape

pytestmark = pytest.mark.django_db

ODD_SLUGS = [
    "plain",
    "a b",
    "tom&jerry",
    "it's",
    'say "hi"',
    "<tag>",
    "50%",
    "?q=1#top",
    "ü-日本-😀",
    "tab\there",
    "~user:@!$()*+,;=",
    "dots..",
]


class ReversingArticleSource(ArticleSource):
    """The same source with its own location(), so every row goes through reverse()."""

    def location(self, row: Any) -> str:
        return reverse(self.url_name or "", kwargs={"slug": row["slug"]})


def test_template_locations_equal_reverse_locations(caplog: pytest.LogCaptureFixture) -> None:
    generator = random.Random(5)
    alphabet = [*"aZ09-_.", *"".join(ODD_SLUGS), "/"]
    slugs = ODD_SLUGS + [
        "".join(generator.choice(alphabet) for _ in range(generator.randint(1, 8)))
        for _ in range(400)
    ]
    bulk_articles(len(slugs), slug=None)
    for article, slug in zip(Article.objects.order_by("pk"), slugs, strict=False):
        article.slug = f"{slug}-{article.pk}"
        article.save(update_fields=["slug"])

    templated = entries_of(ArticleSource())
    templated_log = [record.getMessage() for record in caplog.records]
    caplog.clear()
    reversed_ = entries_of(ReversingArticleSource())

    assert templated == reversed_
    assert templated_log == [record.getMessage() for record in caplog.records]
    # Slashes are refused by the str converter: those rows are logged and skipped.
    assert any("/" in a.slug for a in Article.objects.all())
    assert len(templated) == Article.objects.exclude(slug__contains="/").count()
    tom = Article.objects.get(slug__startswith="tom&jerry")
    assert (
        Entry(
            f"https://www.example.com/articles/tom&jerry-{tom.pk}/",
            tom.updated_at.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00"),
            "weekly",
            "0.6",
        )
        in templated
    )


def test_lastmod_of_utc_and_other_zones_is_written_in_utc() -> None:
    paris = dt.timezone(dt.timedelta(hours=1))
    utc = dt.timezone.utc
    ArticleFactory.create(slug="utc", updated_at=dt.datetime(2024, 5, 6, 7, 8, 9, 999_999, utc))
    ArticleFactory.create(slug="paris", updated_at=dt.datetime(2024, 5, 6, 8, 8, 9, tzinfo=paris))

    lastmods = [entry.lastmod for entry in entries_of(ArticleSource())]

    assert lastmods == ["2024-05-06T07:08:09+00:00", "2024-05-06T07:08:09+00:00"]


class Paged(ArticleSource):
    limit = 3


def paged(ordering: list[str]) -> Paged:
    class Ordered(Paged):
        pass

    Ordered.ordering = ordering
    return Ordered()


def make_articles() -> None:
    titles = [*"bcaabb", "", *"dacceabba", "", *"cad"]
    for number, title in enumerate(titles):
        ArticleFactory.create(
            title=title,
            published=number % 3 != 0,
            updated_at=None
            if number == 4
            else dt.datetime(2024, 1, 1 + number, tzinfo=dt.timezone.utc),
        )


def expected_pages(source: SitemapSource) -> list[list[int]]:
    plan = compile_plan(source)
    pks = list(query_pager(plan).ordered.values_list("pk", flat=True))
    size = plan.page_size
    return [pks[start : start + size] for start in range(0, len(pks), size)]


@pytest.mark.parametrize(
    ("ordering", "key"),
    [
        ([], [KeyColumn("pk", False)]),
        (["-pk"], [KeyColumn("pk", True)]),
        (["-id"], [KeyColumn("id", True)]),
        (["title"], [KeyColumn("title", False), KeyColumn("pk", False)]),
        (
            ["-published", "title", "-pk"],
            [KeyColumn("published", True), KeyColumn("title", False), KeyColumn("pk", True)],
        ),
        # A NULL compares as unknown, and a relation orders by the related
        # model's ordering: both are paged by offset.
        (["updated_at"], None),
        (["category"], None),
        (["category__name"], None),
    ],
)
def test_pages_read_by_keyset_are_the_pages_read_by_offset(
    ordering: list[str], key: list[KeyColumn] | None
) -> None:
    make_articles()
    source = paged(ordering)
    pages = expected_pages(source)
    # 13 published articles: four full pages and one of a single row.
    assert [len(pks) for pks in pages] == [3, 3, 3, 3, 1]
    plan = compile_plan(source)
    assert query_pager(plan).key == key
    pk = pk_reader(plan)

    for page, pks in enumerate([*pages, []], start=1):
        stats = plan.pager.page_stats(page)
        assert [pk(row) for row in page_rows(plan, page)] == pks
        assert [pk(row) for row in page_rows(plan, page, stats.start)] == pks
        newest = Article.objects.filter(pk__in=pks).aggregate(newest=Max("updated_at"))["newest"]
        assert (stats.rows, stats.lastmod) == (len(pks), newest)

    assert list(plan.lastmods(plan.pager.section_stats())) == [
        Article.objects.filter(pk__in=pks).aggregate(newest=Max("updated_at"))["newest"]
        for pks in pages
    ]


def test_a_later_page_reads_its_rows_without_an_offset() -> None:
    make_articles()
    source = paged([])
    plan = compile_plan(source)
    with CaptureQueriesContext(connection) as queries:
        rows = page_rows(plan, 3)
    assert [pk_reader(plan)(row) for row in rows] == expected_pages(source)[2]
    # A seek reads only the key, by offset; the rows are read from that key on.
    slug = connection.ops.quote_name("slug")
    assert [("OFFSET" in query["sql"], slug in query["sql"]) for query in queries] == [
        (True, False),
        (False, True),
    ]


def pk_reader(plan: Plan) -> Any:
    return RowShape(query_pager(plan).row_queryset).reader("pk")


def store_undecodable_slug(article: Article) -> None:
    """Bytes that are no UTF-8, stored as TEXT by raw SQL (SQLite keeps any bytes)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE testapp_article SET slug = CAST(X'61FF62' AS TEXT) WHERE id = %s",
            [article.pk],
        )


@pytest.mark.skipif(connection.vendor != "sqlite", reason="only SQLite stores bytes no codec reads")
@pytest.mark.parametrize("chunk_size", [2_000, 3, 1])
def test_a_row_the_driver_cannot_decode_costs_that_row_alone(
    client: Any, settings: Any, caplog: pytest.LogCaptureFixture, chunk_size: int
) -> None:
    settings.SITEMAPKIT_CHUNK_SIZE = chunk_size
    articles = bulk_articles(7)
    store_undecodable_slug(articles[3])
    response = client.get("/sitemap-articles-1.xml")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert [url.loc for url in parse_urlset(body)] == [
        f"https://www.example.com/articles/{article.slug}/"
        for number, article in enumerate(articles)
        if number != 3
    ]
    messages = [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"]
    assert messages == [
        f"Skipped pk={articles[3].pk} of source 'articles': the database driver cannot read it "
        "(Could not decode to UTF-8 column 'slug' with text 'a\ufffdb')."
    ]
