from __future__ import annotations

import datetime as dt
import gzip
import logging
import re
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, close_old_connections, connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils.http import parse_http_date
from factories import ArticleFactory, CategoryFactory, bulk_articles
from faults import break_connection, unreadable_articles
from lxml import etree
from sitemap_xml import Url, fetch, parse_index, parse_urlset, streamed
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import Field, InvalidEntry, Related, SitemapSource, StaticSource
from django_sitemapkit.sources.rows import raw_chunks

pytestmark = pytest.mark.django_db
UTC = dt.timezone.utc
SITE = "https://www.example.com"
Sources = Callable[..., None]


def at(day: int, hour: int = 0) -> dt.datetime:
    return dt.datetime(2024, 3, day, hour, tzinfo=UTC)


class SmallPages(ArticleSource):
    limit = 2


def get_urls(client: Client, url: str, **headers: str) -> list[Url]:
    status, body, _ = fetch(client, url, **headers)
    assert status == 200, body[:300]
    return parse_urlset(body)


# -- index ---------------------------------------------------------------------


def test_index_lists_every_page_with_its_newest_lastmod(client: Client, sources: Sources) -> None:
    sources(SmallPages, PagesSource)
    ArticleFactory.create(slug="a", updated_at=at(1))
    ArticleFactory.create(slug="b", updated_at=at(5, 12))
    ArticleFactory.create(slug="c", updated_at=at(3))
    ArticleFactory.create(slug="hidden", updated_at=at(9), published=False)
    status, body, headers = fetch(client, "/sitemap.xml")
    assert status == 200
    assert headers["Content-Type"] == "application/xml; charset=utf-8"
    assert parse_index(body) == [
        (f"{SITE}/sitemap-articles-1.xml", "2024-03-05T12:00:00+00:00"),
        (f"{SITE}/sitemap-articles-2.xml", "2024-03-03T00:00:00+00:00"),
        (f"{SITE}/sitemap-pages-1.xml", None),
    ]
    assert headers["Last-Modified"] == "Tue, 05 Mar 2024 12:00:00 GMT"
    assert headers["ETag"].startswith('W/"')


def test_index_leaves_out_empty_sections(client: Client, sources: Sources) -> None:
    sources(ArticleSource, PagesSource)
    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    assert parse_index(body) == [(f"{SITE}/sitemap-pages-1.xml", None)]


def test_index_with_no_rows_anywhere_is_404_not_empty(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    status, _, _ = fetch(client, "/sitemap.xml")
    assert status == 404


NO_SOURCES = (
    "No sitemap source is registered, so there is no sitemap. Sources are registered with "
    "@register (from django_sitemapkit import register) in the sitemaps.py module of an app "
    "in INSTALLED_APPS, which is imported at start-up. A sitemaps.py in the project package "
    "(beside settings.py), or in an app missing from INSTALLED_APPS, is never imported: move "
    "it into an installed app, or add its app to INSTALLED_APPS. Classes of "
    "django.contrib.sitemaps served by the drop-in views (django_sitemapkit.compat) are not "
    "sources: compat.register(sitemaps) in such a sitemaps.py makes each one a section, which "
    "build_sitemaps builds and verify_sitemaps checks."
)


@pytest.mark.parametrize(
    "path",
    ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"],
)
def test_with_no_source_registered_a_404_says_so(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    sources()
    ArticleFactory.create(slug="a")
    response = client.get(path)
    assert (response.status_code, dict(response.headers), response.content.decode()) == (
        404,
        {"Content-Type": "text/plain; charset=utf-8"},
        NO_SOURCES + "\n",
    )
    head = client.head(path)
    assert (head.status_code, head.content) == (404, b"")
    assert [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"
    ] == [("WARNING", NO_SOURCES), ("WARNING", NO_SOURCES)]


def test_registered_sources_without_rows_are_not_mistaken_for_none(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    with override_settings(DEBUG=True):
        response = client.get("/sitemap.xml")
    assert response.status_code == 404
    assert b"No sitemap section has any rows." in response.content
    assert b"registered" not in response.content
    assert [r for r in caplog.records if r.name == "django_sitemapkit"] == []


def test_index_uses_base_url_not_host_header(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(1))
    # The views never read the Host header, so even a host ALLOWED_HOSTS
    # would refuse changes nothing.
    status, body, _ = fetch(client, "/sitemap.xml", host="evil.example")
    urls = get_urls(client, "/sitemap-articles-1.xml", host="evil.example")
    assert status == 200
    assert all(loc.startswith(f"{SITE}/") for loc, _ in parse_index(body))
    assert urls == [Url(f"{SITE}/articles/a/", "2024-03-01T00:00:00+00:00", "weekly", "0.6")]


# -- pages -----------------------------------------------------------------------


def test_page_has_exact_values(client: Client) -> None:
    ArticleFactory.create(
        slug="first", updated_at=dt.datetime(2024, 2, 3, 4, 5, 6, 789, tzinfo=UTC)
    )
    ArticleFactory.create(slug="no-date", updated_at=None)
    # streamed() asserts a StreamingHttpResponse: no template, no buffered page.
    assert parse_urlset(streamed(client.get("/sitemap-articles-1.xml"))) == [
        Url(f"{SITE}/articles/first/", "2024-02-03T04:05:06+00:00", "weekly", "0.6"),
        # No lastmod is invented for a row without one.
        Url(f"{SITE}/articles/no-date/", None, "weekly", "0.6"),
    ]


def test_pages_are_cut_by_count_in_primary_key_order(client: Client, sources: Sources) -> None:
    sources(SmallPages)
    for slug in ["e", "d", "c", "b", "a"]:
        ArticleFactory.create(slug=slug)
    pages = [[u.loc for u in get_urls(client, f"/sitemap-articles-{n}.xml")] for n in (1, 2, 3)]
    assert pages == [
        [f"{SITE}/articles/e/", f"{SITE}/articles/d/"],
        [f"{SITE}/articles/c/", f"{SITE}/articles/b/"],
        [f"{SITE}/articles/a/"],
    ]
    assert fetch(client, "/sitemap-articles-4.xml")[0] == 404


class BySlug(ArticleSource):
    ordering = ("slug",)


def test_source_ordering(client: Client, sources: Sources) -> None:
    sources(BySlug)
    for slug in ["b", "c", "a"]:
        ArticleFactory.create(slug=slug)
    assert [u.loc for u in get_urls(client, "/sitemap-articles-1.xml")] == [
        f"{SITE}/articles/a/",
        f"{SITE}/articles/b/",
        f"{SITE}/articles/c/",
    ]


@pytest.mark.parametrize(
    ("slug", "loc"),
    [
        ("a&b", f"{SITE}/articles/a&b/"),
        ("it's", f"{SITE}/articles/it's/"),
        ('<"quoted">', f"{SITE}/articles/%3C%22quoted%22%3E/"),
        ("caf\u00e9 cr\u00e8me", f"{SITE}/articles/caf%C3%A9%20cr%C3%A8me/"),
        ("\u65e5\u672c", f"{SITE}/articles/%E6%97%A5%E6%9C%AC/"),
        ("tab\tbell\x07", f"{SITE}/articles/tab%09bell%07/"),
        ("already%20", f"{SITE}/articles/already%2520/"),
    ],
)
def test_tricky_slugs_are_quoted_and_escaped_once(client: Client, slug: str, loc: str) -> None:
    ArticleFactory.create(slug=slug)
    status, body, _ = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert [url.loc for url in parse_urlset(body)] == [loc]
    assert b"&amp;amp;" not in body


def test_none_kwarg_is_skipped_and_logged(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    ArticleFactory.create(slug="ok")
    missing = ArticleFactory.create(slug=None)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        urls = get_urls(client, "/sitemap-articles-1.xml")
    assert [u.loc for u in urls] == [f"{SITE}/articles/ok/"]
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            f"Skipped pk={missing.pk} of source 'articles': URL argument 'slug' "
            "(field 'slug') is None.",
        )
    ]


class SlugPattern(ArticleSource):
    url_name = "category-detail"
    url_kwargs = {"category": "slug"}


def test_row_that_does_not_reverse_is_skipped(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(SlugPattern)
    ArticleFactory.create(slug="fine")
    bad = ArticleFactory.create(slug="not a slug")
    urls = get_urls(client, "/sitemap-articles-1.xml")
    assert [u.loc for u in urls] == [f"{SITE}/c/fine/"]
    (record,) = caplog.records
    assert record.getMessage().startswith(
        f"Skipped pk={bad.pk} of source 'articles': its URL does not reverse (Reverse for "
        "'category-detail' with keyword arguments '{'category': 'not a slug'}' not found."
    )


def test_page_whose_rows_all_fail_is_404_and_logged(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    ArticleFactory.create(slug=None)
    status, _, _ = fetch(client, "/sitemap-articles-1.xml")
    assert status == 404
    records = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert [r.levelname for r in records] == ["WARNING", "ERROR"]
    assert records[1].getMessage() == (
        "Page 1 of sitemap source 'articles' has no valid entry (see the warnings above); "
        "it is answered with 404."
    )


@override_settings(SITEMAPKIT_STRICT=True)
def test_strict_mode_raises(client: Client) -> None:
    ArticleFactory.create(slug="ok")
    bad = ArticleFactory.create(slug=None)
    # The first chunk of rows is written before the response starts: the error
    # comes before any byte is sent.
    with pytest.raises(InvalidEntry) as info:
        streamed(client.get("/sitemap-articles-1.xml"))
    assert str(info.value) == (
        f"Skipped pk={bad.pk} of source 'articles': URL argument 'slug' (field 'slug') is None."
    )


def test_2000_character_urls_pass_and_longer_ones_are_skipped(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    prefix = f"{SITE}/articles/"
    fits = "s" * (2_047 - len(prefix) - 1)  # the whole <loc> is 2,047 characters
    ArticleFactory.create(slug=fits)
    too_long = ArticleFactory.create(slug=fits + "x")
    urls = get_urls(client, "/sitemap-articles-1.xml")
    assert [len(u.loc) for u in urls] == [2_047]
    (record,) = caplog.records
    assert record.getMessage().startswith(
        f"Skipped pk={too_long.pk} of source 'articles': location of 2,048 characters is too long"
    )


@pytest.mark.slow
def test_protocol_cap_of_50000_urls_per_page(client: Client) -> None:
    bulk_articles(50_001)
    index = parse_index(fetch(client, "/sitemap.xml")[1])
    assert [loc for loc, _ in index] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-2.xml",
        f"{SITE}/sitemap-pages-1.xml",
    ]
    counts = [len(get_urls(client, f"/sitemap-articles-{n}.xml")) for n in (1, 2)]
    assert counts == [50_000, 1]
    # Exactly 50,000: one full page, and no second one (the same rows, less the last:
    # reading the 50,000 again would cost this test's time twice for nothing).
    Article.objects.filter(pk=Article.objects.order_by("-pk")[0].pk).delete()
    index = parse_index(fetch(client, "/sitemap.xml")[1])
    assert [loc for loc, _ in index] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-pages-1.xml",
    ]
    assert client.get("/sitemap-articles-2.xml").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/sitemap-nope-1.xml",
        "/sitemap-articles-0.xml",
        "/sitemap-articles-2.xml",
        "/sitemap-articles-01.xml",
        "/sitemap-articles--1.xml",
        "/sitemap-articles-x.xml",
        "/sitemap-articles-.xml",
        "/sitemap-articles-1e3.xml",
        "/sitemap-articles-\u0661.xml",
        "/sitemap-articles-99999999999999999999.xml",
        "/sitemap-articles-1000000000.xml",
        "/sitemap-articles-999999999.xml",
        "/sitemap-..-1.xml",
        "/sitemap-%2e%2e-1.xml",
        "/sitemap-articles-1.xml/",
        "/sitemap-articles.xml",
    ],
)
def test_404s(client: Client, path: str) -> None:
    ArticleFactory.create(slug="a")
    assert fetch(client, path)[0] == 404


def test_head_has_headers_and_no_body(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2))
    response = client.head("/sitemap-articles-1.xml")
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    assert response["Last-Modified"] == "Sat, 02 Mar 2024 00:00:00 GMT"


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_unsafe_methods_are_405(client: Client, method: str) -> None:
    ArticleFactory.create(slug="a")
    assert getattr(client, method)("/sitemap-articles-1.xml").status_code == 405
    assert getattr(client, method)("/sitemap.xml").status_code == 405


def test_conditional_get(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2, 10))
    _, _, headers = fetch(client, "/sitemap-articles-1.xml")
    assert headers["Last-Modified"] == "Sat, 02 Mar 2024 10:00:00 GMT"
    etag = headers["ETag"]
    assert etag.startswith('W/"')
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/sitemap-articles-1.xml", headers={"if-none-match": etag})
    assert response.status_code == 304
    assert len(queries) == 1  # the page's aggregate, no rows
    since = client.get(
        "/sitemap-articles-1.xml", headers={"if-modified-since": "Sat, 02 Mar 2024 10:00:00 GMT"}
    )
    assert since.status_code == 304
    # fetch() reads the whole body, so the rows' cursor is released.
    older = fetch(
        client, "/sitemap-articles-1.xml", **{"if-modified-since": "Sat, 02 Mar 2024 09:59:59 GMT"}
    )
    assert older[0] == 200
    ArticleFactory.create(slug="b", updated_at=at(1))
    changed = fetch(client, "/sitemap-articles-1.xml", **{"if-none-match": etag})
    assert changed[0] == 200
    index_etag = fetch(client, "/sitemap.xml")[2]["ETag"]
    assert client.get("/sitemap.xml", headers={"if-none-match": index_etag}).status_code == 304


def test_the_documents_say_noindex_unless_told_otherwise(client: Client) -> None:
    ArticleFactory.create(slug="a")
    assert fetch(client, "/sitemap-articles-1.xml")[2]["X-Robots-Tag"] == "noindex"
    assert fetch(client, "/sitemap.xml")[2]["X-Robots-Tag"] == "noindex"
    with override_settings(SITEMAPKIT_X_ROBOTS_TAG=None):
        assert "X-Robots-Tag" not in fetch(client, "/sitemap-articles-1.xml")[2]
    with override_settings(SITEMAPKIT_X_ROBOTS_TAG="noindex, noarchive"):
        assert fetch(client, "/sitemap.xml")[2]["X-Robots-Tag"] == "noindex, noarchive"


def test_page_reads_only_the_columns_it_needs(client: Client) -> None:
    ArticleFactory.create(slug="a", title="a title")
    with CaptureQueriesContext(connection) as queries:
        fetch(client, "/sitemap-articles-1.xml")
    select = queries.captured_queries[-1]["sql"]
    quoted = connection.ops.quote_name
    assert quoted("slug") in select
    assert quoted("updated_at") in select
    assert quoted("title") not in select


def test_same_bytes_whatever_the_requests_script_name(client: Client) -> None:
    ArticleFactory.create(slug="a")
    plain = fetch(client, "/sitemap-articles-1.xml")[1]
    prefixed = client.get("/sitemap-articles-1.xml", SCRIPT_NAME="/mounted")
    assert streamed(prefixed) == plain
    assert b"/mounted" not in plain


@override_settings(FORCE_SCRIPT_NAME="/site/")
def test_force_script_name_prefixes_every_location(client: Client) -> None:
    ArticleFactory.create(slug="a")
    assert [loc for loc, _ in parse_index(fetch(client, "/sitemap.xml")[1])] == [
        f"{SITE}/site/sitemap-articles-1.xml",
        f"{SITE}/site/sitemap-pages-1.xml",
    ]
    assert [u.loc for u in get_urls(client, "/sitemap-articles-1.xml")] == [
        f"{SITE}/site/articles/a/"
    ]


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_sitemap_under_a_sub_path_skips_entries_outside_it(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    class Blog(ArticleSource):
        name = "blog"
        url_name = "blog-detail"

    sources(ArticleSource, Blog)
    ArticleFactory.create(slug="a")
    assert [u.loc for u in get_urls(client, "/shop/sitemap-articles-1.xml")] == [f"{SITE}/shop/a/"]
    assert fetch(client, "/shop/sitemap-blog-1.xml")[0] == 404
    assert "is outside 'https://www.example.com/shop/'" in caplog.records[0].getMessage()


class DotSegments(SitemapSource):
    """Locations inside "/blog/" as written, three of them outside once resolved."""

    name = "dots"
    queryset = Article.objects.all()
    fields = ("slug",)
    locations: ClassVar[dict[str, str]] = {
        "up": "/blog/../admin/",
        "encoded": "/blog/%2e%2e/admin/",
        "around": "/blog/./x/../../admin/",
        "harmless": "/blog/a/../b/",
    }

    def location(self, row: dict[str, Any]) -> str:
        return self.locations[row["slug"]]


def sitemapkit_messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"]


@override_settings(FORCE_SCRIPT_NAME="/blog/")
def test_a_location_dot_segments_take_outside_the_directory_is_skipped(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(DotSegments)
    hostile = [ArticleFactory.create(slug=slug) for slug in ("up", "encoded", "around")]
    ArticleFactory.create(slug="harmless")
    assert get_urls(client, "/sitemap-dots-1.xml") == [Url(f"{SITE}/blog/b/")]
    # One reason: the first row in full, the others counted.
    assert sitemapkit_messages(caplog) == [
        f"Skipped pk={hostile[0].pk} of source 'dots': location '{SITE}/admin/' is outside "
        f"'{SITE}/blog/', the directory the sitemap is served from (sitemaps.org location rule).",
        "Skipped 2 more rows of source 'dots' on page 1 for the same reason as "
        f"pk={hostile[0].pk} (3 in all).",
    ]


class PathArguments(SitemapSource):
    name = "paths"
    queryset = Article.objects.all()
    url_name = "path"  # "path/<path:value>"
    url_kwargs = {"value": "slug"}


class StrArguments(PathArguments):
    name = "strs"
    url_name = "str"  # "str/<str:value>/"


@override_settings(ROOT_URLCONF="testapp.urls_templates", FORCE_SCRIPT_NAME="/blog/")
def test_url_arguments_that_make_dot_segments_are_resolved_before_the_location_rule(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    # The URL template's quick route would list "/blog/path/a/../../../admin"
    # as reverse() gives it; such rows take the policy's route.
    sources(PathArguments, StrArguments)
    for slug in ("plain", "..", ".", "x/./y"):
        ArticleFactory.create(slug=slug)
    escaping = ArticleFactory.create(slug="a/../../../admin")
    assert [url.loc for url in get_urls(client, "/sitemap-paths-1.xml")] == [
        f"{SITE}/blog/path/plain",
        f"{SITE}/blog/",
        f"{SITE}/blog/path/",
        f"{SITE}/blog/path/x/y",
    ]
    assert sitemapkit_messages(caplog) == [
        f"Skipped pk={escaping.pk} of source 'paths': location '{SITE}/admin' is outside "
        f"'{SITE}/blog/', the directory the sitemap is served from (sitemaps.org location rule)."
    ]
    # A <str:> argument holds no "/" (the last two rows do not reverse): ".."
    # takes its URL up to the directory, "." leaves it where it is.
    assert [url.loc for url in get_urls(client, "/sitemap-strs-1.xml")] == [
        f"{SITE}/blog/str/plain/",
        f"{SITE}/blog/",
        f"{SITE}/blog/str/",
    ]


# -- declaration forms -----------------------------------------------------------


class ByAbsoluteUrl(SitemapSource):
    name = "by-id"
    queryset = Article.objects.all()
    lastmod = "published_on"


def test_get_absolute_url_and_date_lastmod(client: Client, sources: Sources) -> None:
    sources(ByAbsoluteUrl)
    article = ArticleFactory.create(published_on=dt.date(2023, 12, 31))
    assert get_urls(client, "/sitemap-by-id-1.xml") == [
        Url(f"{SITE}/by-id/{article.pk}/", "2023-12-31")
    ]
    assert parse_index(fetch(client, "/sitemap.xml")[1]) == [
        (f"{SITE}/sitemap-by-id-1.xml", "2023-12-31")
    ]


class FromFields(SitemapSource):
    name = "fields"
    queryset = Article.objects.select_related("category")
    url_name = "article-in-category"
    url_kwargs = {"category": "category__slug", "slug": "slug"}
    lastmod = Field("updated_at")
    changefreq = Field("changefreq")
    priority = Field("priority")


def test_values_from_fields_across_relations(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(FromFields)
    shoes = CategoryFactory.create(slug="shoes")
    ArticleFactory.create(
        slug="a", category=shoes, changefreq="daily", priority=0.9, updated_at=at(1)
    )
    ArticleFactory.create(slug="b", category=shoes, changefreq=None, priority=None, updated_at=None)
    bad = ArticleFactory.create(
        slug="c", category=shoes, changefreq="Daily", priority=0.5, updated_at=None
    )
    worse = ArticleFactory.create(
        slug="d", category=shoes, changefreq="weekly", priority=7.0, updated_at=None
    )
    # An invalid changefreq or priority is left out; the URL is kept.
    assert get_urls(client, "/sitemap-fields-1.xml") == [
        Url(f"{SITE}/c/shoes/a/", "2024-03-01T00:00:00+00:00", "daily", "0.9"),
        Url(f"{SITE}/c/shoes/b/"),
        Url(f"{SITE}/c/shoes/c/", None, None, "0.5"),
        Url(f"{SITE}/c/shoes/d/", None, "weekly"),
    ]
    assert [r.getMessage() for r in caplog.records] == [
        f"Left out the changefreq of pk={bad.pk} of source 'fields': 'Daily' is not one of "
        "always, hourly, daily, weekly, monthly, yearly, never.",
        f"Left out the priority of pk={worse.pk} of source 'fields': 7.0 is outside 0.0 to 1.0.",
    ]


class Computed(SitemapSource):
    name = "computed"
    queryset = Article.objects.all()
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    fields = ("title",)

    def lastmod(self, row: dict[str, Any]) -> Any:
        # Naive: read in the project's time zone (Europe/Paris in the tests).
        return dt.datetime(2024, 7, 1, 12, 0, 0) if row["title"] == "naive" else None

    def changefreq(self, row: dict[str, Any]) -> str:
        return "hourly" if row["title"].startswith("hot") else "yearly"

    def priority(self, row: dict[str, Any]) -> float:
        return 1.0 if row["title"].startswith("hot") else 0.1


def test_per_row_methods(client: Client, sources: Sources) -> None:
    sources(Computed)
    ArticleFactory.create(slug="a", title="hot news")
    ArticleFactory.create(slug="b", title="naive")
    assert get_urls(client, "/sitemap-computed-1.xml") == [
        Url(f"{SITE}/articles/a/", None, "hourly", "1.0"),
        Url(f"{SITE}/articles/b/", "2024-07-01T10:00:00+00:00", "yearly", "0.1"),
    ]
    # A computed lastmod cannot be aggregated in the database: the index omits it.
    assert parse_index(fetch(client, "/sitemap.xml")[1]) == [
        (f"{SITE}/sitemap-computed-1.xml", None)
    ]


class Overridden(SitemapSource):
    name = "overridden"
    queryset = Article.objects.all()
    fields = ("slug",)

    def location(self, row: dict[str, Any]) -> str:
        if row["slug"] == "elsewhere":
            return "https://cdn.example.net/x/"
        return f"https://www.example.com/custom/{row['slug']}?ref=sitemap&x='1'"


def test_location_override_keeps_the_single_host_rule(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(Overridden)
    ArticleFactory.create(slug="a")
    other = ArticleFactory.create(slug="elsewhere")
    _status, body, _ = fetch(client, "/sitemap-overridden-1.xml")
    assert b"<loc>https://www.example.com/custom/a?ref=sitemap&amp;x=&apos;1&apos;</loc>" in body
    assert parse_urlset(body) == [Url(f"{SITE}/custom/a?ref=sitemap&x='1'")]
    assert caplog.records[0].getMessage() == (
        f"Skipped pk={other.pk} of source 'overridden': location 'https://cdn.example.net/x/' "
        "is not on 'https://www.example.com', the site's base URL; a sitemap lists URLs of "
        "one host only."
    )


class Static(StaticSource):
    name = "static"
    urls = ["home", ("category-detail", {"category": "shoes"}), "/legal/terms/"]
    priority = 0.3
    lastmod = dt.date(2024, 1, 15)


def test_static_source(client: Client, sources: Sources) -> None:
    sources(Static)
    assert get_urls(client, "/sitemap-static-1.xml") == [
        Url(f"{SITE}/", "2024-01-15", None, "0.3"),
        Url(f"{SITE}/c/shoes/", "2024-01-15", None, "0.3"),
        Url(f"{SITE}/legal/terms/", "2024-01-15", None, "0.3"),
    ]
    assert parse_index(fetch(client, "/sitemap.xml")[1]) == [
        (f"{SITE}/sitemap-static-1.xml", "2024-01-15")
    ]


class LongLocations(ArticleSource):
    name = "long"

    def location(self, row: dict[str, Any]) -> str:
        return f"/articles/{row['slug']}/".ljust(1_977, "x")  # 2,000 characters with the host


@pytest.mark.slow
def test_page_past_50_mib_is_cut_and_the_fitting_limit_logged(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(LongLocations)
    bulk_articles(26_000, updated_at=None)
    status, body, _ = fetch(client, "/sitemap-long-1.xml")
    assert status == 200
    assert len(body) <= 52_428_800
    urls = parse_urlset(body)
    assert {len(url.loc) for url in urls} == {2_000}
    assert 25_000 < len(urls) < 26_000
    (record,) = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert (record.levelname, record.getMessage()) == (
        "ERROR",
        f"Page 1 of sitemap source 'long' was cut after {len(urls):,} URLs: the next one would "
        "take it past 52,428,800 bytes (SITEMAPKIT_MAX_BYTES). Set limit = "
        f"{len(urls)} on the source so every page fits.",
    )


def test_index_queries(client: Client, sources: Sources) -> None:
    class NoLastmod(ArticleSource):
        name = "plain"
        lastmod = None  # type: ignore[assignment]

    sources(SmallPages, NoLastmod)
    bulk_articles(5)
    with CaptureQueriesContext(connection) as queries:
        assert fetch(client, "/sitemap.xml")[0] == 200
    # One aggregate per section (count, last key, newest lastmod); then one
    # aggregate per page of the source with a lastmod field, each page
    # starting after the last key of the one before (no offset).
    assert len(queries) == 2 + 3
    with CaptureQueriesContext(connection) as queries:
        assert fetch(client, "/sitemap.xml")[0] == 200
    # The sections have not changed: their page lastmods are kept.
    assert len(queries) == 2


class ByNullableDate(SmallPages):
    # A nullable column cannot be a seek key: these pages are read by offset.
    ordering = ["-updated_at"]


def test_index_of_pages_without_a_key_is_one_read_not_one_offset_per_page(
    client: Client, sources: Sources
) -> None:
    sources(ByNullableDate)
    for day, hour in [(4, 0), (9, 0), (1, 5), (2, 0), (8, 3)]:
        ArticleFactory.create(updated_at=at(day, hour))
    ArticleFactory.create(updated_at=None)
    queries: list[str] = []

    def record(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        queries.append(sql)
        return execute(sql, *args)

    # execute_wrapper() sees every query, that of iterator()'s chunked cursor too.
    with connection.execute_wrapper(record):
        status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    # Newest first, two a page; NULL sorts first on PostgreSQL, last on SQLite.
    pages = [parse_urlset(fetch(client, f"/sitemap-articles-{n}.xml")[1]) for n in (1, 2, 3)]
    assert parse_index(body) == [
        (
            f"{SITE}/sitemap-articles-{n}.xml",
            max((u.lastmod for u in urls if u.lastmod), default=None),
        )
        for n, urls in enumerate(pages, start=1)
    ]
    # The section's aggregate, then one read (was one aggregate per page, each after an OFFSET).
    assert len(queries) == 2, queries


@override_settings(SITEMAPKIT_MAX_BYTES=1_024)
def test_max_bytes_setting_cuts_pages(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    bulk_articles(10)
    status, body, _ = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert len(body) <= 1_024
    urls = parse_urlset(body)
    assert 0 < len(urls) < 10
    (record,) = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert (record.levelname, record.getMessage()) == (
        "ERROR",
        f"Page 1 of sitemap source 'articles' was cut after {len(urls)} URLs: the next one "
        "would take it past 1,024 bytes (SITEMAPKIT_MAX_BYTES). Set limit = "
        f"{len(urls)} on the source so every page fits.",
    )


@override_settings(SITEMAPKIT_MAX_BYTES=1_024)
def test_max_bytes_setting_cuts_the_index(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(SmallPages)
    bulk_articles(30)
    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    assert len(body) <= 1_024
    listed = parse_index(body)
    assert [loc for loc, _ in listed] == [
        f"{SITE}/sitemap-articles-{n}.xml" for n in range(1, len(listed) + 1)
    ]
    assert 0 < len(listed) < 15
    (record,) = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert (record.levelname, record.getMessage()) == (
        "ERROR",
        f"The sitemap index was cut after {len(listed)} of 15 pages: the next one would take "
        "it past 1,024 bytes (SITEMAPKIT_MAX_BYTES). Raise SITEMAPKIT_MAX_BYTES, or "
        "SITEMAPKIT_LIMIT so that fewer pages are needed.",
    )


@override_settings(SITEMAPKIT_MAX_BYTES=1_024)
def test_an_entry_too_big_for_any_page_is_skipped_and_logged(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    # The rule of build_sitemaps too: a page means the same in the views and the files.
    ArticleFactory.create(slug="s" * 1_000)
    ArticleFactory.create(slug="short")
    status, body, _ = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/articles/short/"]
    records = [r for r in caplog.records if r.name == "django_sitemapkit"]
    line = f"<url><loc>{SITE}/articles/{'s' * 1_000}/</loc>" + (
        "<lastmod>2024-03-02T00:00:00+00:00</lastmod><changefreq>weekly</changefreq>"
        "<priority>0.6</priority></url>\n"
    )
    assert [(r.levelname, r.getMessage()) for r in records] == [
        (
            "WARNING",
            f"Skipped '{SITE}/articles/{'s' * 1_000}/' of source 'articles': its <url> takes "
            f"{len(line):,} bytes, more than a document of SITEMAPKIT_MAX_BYTES (1,024) has "
            "room for.",
        )
    ]


@override_settings(SITEMAPKIT_MAX_BYTES=1_024)
def test_page_whose_every_entry_is_too_big_is_404_not_empty(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    ArticleFactory.create(slug="s" * 1_000)
    assert fetch(client, "/sitemap-articles-1.xml")[0] == 404
    assert client.head("/sitemap-articles-1.xml.gz").status_code == 404
    records = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert [(r.levelname, r.getMessage()[:40]) for r in records] == [
        ("WARNING", f"Skipped '{SITE}/article"),
        ("ERROR", "Page 1 of sitemap source 'articles' has "),
    ] * 2


@override_settings(SITEMAPKIT_MAX_BYTES=1_024)
def test_an_entry_that_just_fits_is_served(client: Client) -> None:
    # 1,024 bytes exactly: the declaration, <urlset ...>, one <url> and </urlset>.
    overhead = len(
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        b"<url><loc>https://www.example.com/articles/</loc><lastmod>2024-03-02T00:00:00+00:00"
        b"</lastmod><changefreq>weekly</changefreq><priority>0.6</priority></url>\n"
        b"</urlset>\n"
    )
    ArticleFactory.create(slug="s" * (1_024 - overhead - 1), updated_at=at(2))
    status, body, _ = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert len(body) == 1_024
    assert len(parse_urlset(body)) == 1


def test_max_bytes_is_part_of_the_validators(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2))
    etag = fetch(client, "/sitemap-articles-1.xml")[2]["ETag"]
    with override_settings(SITEMAPKIT_MAX_BYTES=1_024):
        # Another cap may cut the page elsewhere: a cached copy is not current.
        response = client.get("/sitemap-articles-1.xml", headers={"if-none-match": etag})
        assert response.status_code == 200
        streamed(response)


# -- .xml.gz ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sitemap.xml", "sitemap-articles-1.xml", "sitemap-pages-1.xml"])
def test_xml_gz_is_the_gzip_file_of_the_xml(client: Client, name: str) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2))
    ArticleFactory.create(slug="b", updated_at=at(3))
    status, xml, xml_headers = fetch(client, f"/{name}")
    first = client.get(f"/{name}.gz")
    compressed = streamed(first)
    assert first.status_code == 200
    # The file itself is gzip: no Content-Encoding, so nothing decodes it on
    # the way. The validators are the XML's, the ETag its own (tested below).
    expected = {**xml_headers, "Content-Type": "application/gzip"}
    if "ETag" in xml_headers:
        expected["ETag"] = first["ETag"]
    assert dict(first.headers) == expected
    assert compressed[:2] == b"\x1f\x8b"
    assert gzip.decompress(compressed) == xml
    if name == "sitemap.xml":
        assert [loc for loc, _ in parse_index(gzip.decompress(compressed))] == [
            f"{SITE}/sitemap-articles-1.xml",
            f"{SITE}/sitemap-pages-1.xml",
        ]
    else:
        assert parse_urlset(gzip.decompress(compressed))
    # Deterministic: the same rows give the same bytes (gzip MTIME 0, no name).
    assert fetch(client, f"/{name}.gz")[1] == compressed
    assert status == 200


def test_xml_gz_has_its_own_validator(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2, 10))
    for path in ["/sitemap-articles-1.xml", "/sitemap.xml"]:
        xml_etag = fetch(client, path)[2]["ETag"]
        response = client.get(path + ".gz")
        streamed(response)
        gz_etag = response["ETag"]
        assert gz_etag.startswith('W/"')
        assert gz_etag != xml_etag
        # One representation's validator does not match the other.
        other = client.get(path + ".gz", headers={"if-none-match": xml_etag})
        assert other.status_code == 200
        streamed(other)
        with CaptureQueriesContext(connection) as queries:
            not_modified = client.get(path + ".gz", headers={"if-none-match": gz_etag})
        assert not_modified.status_code == 304
        assert dict(not_modified.headers) == {
            "ETag": gz_etag,
            "Last-Modified": "Sat, 02 Mar 2024 10:00:00 GMT",
        }
        if path == "/sitemap-articles-1.xml":
            assert len(queries) == 1  # the page's aggregate, no rows
    since = client.get(
        "/sitemap-articles-1.xml.gz",
        headers={"if-modified-since": "Sat, 02 Mar 2024 10:00:00 GMT"},
    )
    assert since.status_code == 304


def test_xml_gz_head_has_headers_and_no_body(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2))
    get = client.get("/sitemap-articles-1.xml.gz")
    streamed(get)
    head = client.head("/sitemap-articles-1.xml.gz")
    assert head.status_code == 200
    assert head.content == b""
    assert dict(head.headers) == dict(get.headers)


@pytest.mark.parametrize(
    "path",
    [
        "/sitemap-nope-1.xml.gz",
        "/sitemap-articles-0.xml.gz",
        "/sitemap-articles-2.xml.gz",
        "/sitemap-articles-01.xml.gz",
        "/sitemap-..-1.xml.gz",
        "/sitemap-articles-1.xml.gz.gz",
        "/sitemap-articles-1.gz",
        "/sitemap.gz",
        "/sitemap.xml.gz/",
    ],
)
def test_xml_gz_404s(client: Client, path: str) -> None:
    ArticleFactory.create(slug="a")
    assert fetch(client, path)[0] == 404


def test_xml_gz_of_a_page_without_valid_entries_is_404(client: Client) -> None:
    ArticleFactory.create(slug=None)
    assert fetch(client, "/sitemap-articles-1.xml.gz")[0] == 404
    assert client.head("/sitemap-articles-1.xml.gz").status_code == 404


def test_xml_gz_index_with_no_rows_anywhere_is_404(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    assert fetch(client, "/sitemap.xml.gz")[0] == 404


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_xml_gz_unsafe_methods_are_405(client: Client, method: str) -> None:
    ArticleFactory.create(slug="a")
    assert getattr(client, method)("/sitemap-articles-1.xml.gz").status_code == 405
    assert getattr(client, method)("/sitemap.xml.gz").status_code == 405


def test_xml_gz_robots_header(client: Client) -> None:
    ArticleFactory.create(slug="a")
    with override_settings(SITEMAPKIT_X_ROBOTS_TAG="noindex"):
        assert fetch(client, "/sitemap-articles-1.xml.gz")[2]["X-Robots-Tag"] == "noindex"
        assert fetch(client, "/sitemap.xml.gz")[2]["X-Robots-Tag"] == "noindex"


def test_not_modified_carries_the_validators(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=at(2, 10))
    etag = fetch(client, "/sitemap-articles-1.xml")[2]["ETag"]
    response = client.get("/sitemap-articles-1.xml", headers={"if-none-match": etag})
    assert response.status_code == 304
    # RFC 9110 section 15.4.5: a 304 sends the ETag a 200 would have sent.
    assert dict(response.headers) == {
        "ETag": etag,
        "Last-Modified": "Sat, 02 Mar 2024 10:00:00 GMT",
    }


@pytest.mark.parametrize("path", ["/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"])
def test_a_response_closed_before_its_first_chunk_releases_the_rows(
    client: Client, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    released: list[str] = []
    read = raw_chunks

    def recorded(queryset: Any, chunk_size: int) -> Iterator[Any]:
        try:
            yield from read(queryset, chunk_size)
        finally:
            released.append("rows")

    monkeypatch.setattr("django_sitemapkit.sources.pages.raw_chunks", recorded)
    ArticleFactory.create(slug="a")
    ArticleFactory.create(slug="b")
    response = client.get(path)
    assert released == []  # the first chunk is read, the cursor open
    response.close()  # what a WSGI server does when the client has gone
    assert released == ["rows"]


# -- database faults ---------------------------------------------------------------------


class WithPhotos(ArticleSource):
    """A query of the articles' photos for each chunk of rows, while the page is read."""

    images = Related("photos", loc="url")


# What fails mid-page: the next fetch of the page's rows, or the next chunk's
# query of related rows. On MySQL only the second can: a page's rows are all in
# the client once its query has run (mysqlclient's buffered cursor, see
# docs/databases.md).
READ_MID_PAGE = [
    pytest.param(
        ArticleSource,
        marks=pytest.mark.skipif(
            connection.vendor == "mysql",
            reason="SQLite and PostgreSQL: on MySQL the page's rows are all fetched at once",
        ),
        id="rows",
    ),
    pytest.param(WithPhotos, id="related"),
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("source", READ_MID_PAGE)
@pytest.mark.parametrize("path", ["/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"])
@override_settings(SITEMAPKIT_CHUNK_SIZE=100)
def test_a_database_failure_mid_page_ends_the_response_without_a_closing_tag(
    client: Client,
    caplog: pytest.LogCaptureFixture,
    sources: Sources,
    path: str,
    source: type[ArticleSource],
) -> None:
    sources(source)
    bulk_articles(3_000)
    response = client.get(path)
    chunks = iter(response.streaming_content)  # type: ignore[attr-defined]
    parts = [next(chunks)]
    break_connection()
    with pytest.raises(DatabaseError):
        parts.extend(chunks)  # keeps what arrived before the error
    received = b"".join(parts)
    if path.endswith(".gz"):
        # zlib holds back most of what it was given: the client may have only
        # the gzip header, but never the trailer that would mark the end.
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        assert b"</urlset>" not in decompressor.decompress(received)
        assert not decompressor.eof
    else:
        assert received.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset')
        assert received.count(b"<url>") >= 300
        assert b"</urlset>" not in received
        with pytest.raises(etree.XMLSyntaxError):
            etree.fromstring(received)
    [record] = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
    assert re.fullmatch(
        r"Page 1 of sitemap source 'articles' failed after [0-9,]+ URLs were encoded "
        r"\(OperationalError: "
        r".+\); the response ends there, without its closing tag\.",
        record.getMessage(),
        re.DOTALL,
    ), record.getMessage()
    # What a server does when a request ends: a broken connection is dropped,
    # so the next request opens a new one and gets the whole page.
    close_old_connections()
    status, body, _ = fetch(client, path)
    assert status == 200
    if path.endswith(".gz"):
        body = gzip.decompress(body)
    assert len(parse_urlset(body)) == 3_000


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("method", ["get", "head"])
def test_a_database_failure_before_the_first_byte_is_a_503(
    client: Client, caplog: pytest.LogCaptureFixture, method: str
) -> None:
    ArticleFactory.create(slug="a")
    with unreadable_articles():
        response = getattr(client, method)("/sitemap-articles-1.xml")
    assert response.status_code == 503
    assert response["Retry-After"] == "120"
    assert response.content == (
        b"" if method == "head" else b"The sitemap is unavailable; try again later.\n"
    )
    [record] = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert record.getMessage() == (
        "Page 1 of sitemap source 'articles' could not be read from the database; it is "
        "answered with 503 and Retry-After. Check that the database is reachable, or serve "
        "built files (SITEMAPKIT_SERVE = 'files')."
    )
    assert record.exc_info is not None
    close_old_connections()
    assert fetch(client, "/sitemap-articles-1.xml")[0] == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/sitemap.xml", "/sitemap.xml.gz"])
def test_an_index_the_database_cannot_read_is_a_503(
    client: Client, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    ArticleFactory.create(slug="a")
    with unreadable_articles():
        response = client.get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "120"
    assert caplog.messages[0].startswith("The sitemap index could not be read from the database")
    close_old_connections()
    assert fetch(client, path)[0] == 200


class MissingTable(ArticleSource):
    queryset = Article.objects.extra(tables=["no_such_table"])


@pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="PostgreSQL and MySQL: sqlite3 reports a missing table as OperationalError,"
    " as it does a lost connection",
)
def test_a_bug_in_a_query_stays_a_500_not_a_503(client: Client, sources: Sources) -> None:
    # Retrying would not mend it: the error reaches Django's handler (and an
    # error tracker listening to got_request_exception).
    sources(MissingTable)
    ArticleFactory.create(slug="a")
    with pytest.raises(DatabaseError):
        client.get("/sitemap-articles-1.xml")


# -- validators that cannot lie ----------------------------------------------------------


def test_a_lastmod_in_the_future_is_sent_as_now(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=dt.datetime(9000, 1, 1, tzinfo=UTC))
    for path in ["/sitemap.xml", "/sitemap-articles-1.xml"]:
        before = int(time.time())
        status, _, headers = fetch(client, path)
        assert status == 200
        # RFC 9110 section 8.8.2.1: never later than the response. A client sent
        # "9000" would ask If-Modified-Since 9000 and get 304 for every change.
        assert before <= parse_http_date(headers["Last-Modified"]) <= time.time()


def test_a_row_dated_in_the_future_is_listed_and_its_page_is_not_dated_by_it(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(SmallPages)
    future = dt.datetime.now(UTC) + dt.timedelta(days=1)
    ArticleFactory.create(slug="a", updated_at=at(1))
    late = ArticleFactory.create(slug="b", updated_at=future)
    ArticleFactory.create(slug="c", updated_at=at(3))
    urls = get_urls(client, "/sitemap-articles-1.xml")
    assert [(url.loc, url.lastmod) for url in urls] == [
        (f"{SITE}/articles/a/", "2024-03-01T00:00:00+00:00"),
        (f"{SITE}/articles/b/", None),
    ]
    assert caplog.messages == [
        f"Left out the lastmod of pk={late.pk} of source 'articles': "
        f"{future.replace(microsecond=0).isoformat()} is later than now, and search engines "
        "refuse a date in the future (a clock running ahead, or a naive datetime saved in "
        "another time zone than TIME_ZONE?)."
    ]
    # The page's newest lastmod is in the future: the index gives it no date.
    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    assert parse_index(body) == [
        (f"{SITE}/sitemap-articles-1.xml", None),
        (f"{SITE}/sitemap-articles-2.xml", "2024-03-03T00:00:00+00:00"),
    ]


@override_settings(USE_TZ=False, TIME_ZONE="America/New_York")
def test_a_lastmod_that_cannot_be_expressed_in_utc_is_skipped_not_a_500(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by the security review: 23:00 on 9999-12-31 in New York is in year 10000 in UTC.
    ArticleFactory.create(slug="a", updated_at=dt.datetime(2024, 1, 2, 3, 4, 5))
    late = ArticleFactory.create(slug="b", updated_at=dt.datetime(9999, 12, 31, 23))
    index = fetch(client, "/sitemap.xml")
    assert index[0] == 200
    # The page's MAX() is the refused one: it is dated by the newest valid one.
    assert parse_index(index[1]) == [
        (f"{SITE}/sitemap-articles-1.xml", "2024-01-02T08:04:05+00:00"),
        (f"{SITE}/sitemap-pages-1.xml", None),
    ]
    status, body, headers = fetch(client, "/sitemap-articles-1.xml")
    assert status == 200
    assert headers["Last-Modified"] == "Tue, 02 Jan 2024 08:04:05 GMT"
    assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/articles/a/"]
    refused = "lastmod datetime.datetime(9999, 12, 31, 23, 0) cannot be expressed in UTC"
    assert caplog.messages == [
        f"The newest lastmod of source 'articles' (column 'updated_at', pk={late.pk}) is "
        f"refused: {refused}; its page and the index are dated by the newest valid one, "
        "2024-01-02T08:04:05+00:00. Store a date or datetime in that row, or NULL.",
        f"Skipped pk={late.pk} of source 'articles': {refused}.",
    ]
    # Read whole, so the rows' cursor is closed now, not by garbage collection in a later test.
    assert fetch(client, "/sitemap-articles-1.xml.gz")[0] == 200


def test_the_validator_changes_with_the_script_prefix(client: Client) -> None:
    ArticleFactory.create(slug="a")
    etag = fetch(client, "/sitemap-articles-1.xml")[2]["ETag"]
    with override_settings(FORCE_SCRIPT_NAME="/blog/"):
        # Found by the security review: the same validator for other bytes was a 304.
        moved = client.get("/sitemap-articles-1.xml", headers={"if-none-match": etag})
        assert moved.status_code == 200
        assert [url.loc for url in parse_urlset(streamed(moved))] == [f"{SITE}/blog/articles/a/"]


@pytest.mark.skipif(
    connection.vendor != "sqlite", reason="only SQLite keeps text a DateTimeField cannot read"
)
def test_an_unreadable_lastmod_that_is_no_page_s_newest_leaves_the_index_alone(
    client: Client, sources: Sources
) -> None:
    # Found by review: reading every lastmod in Python failed the whole index
    # on one such value; the database's MAX() per page reads only the newest.
    sources(ByNullableDate)
    for day in (4, 9, 1, 2, 8):
        ArticleFactory.create(updated_at=at(day))
    bad = ArticleFactory.create(updated_at=at(3))
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE testapp_article SET updated_at = '2024-02-30 10:00:00' WHERE id = %s", [bad.pk]
        )
    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    # Newest first, two a page: (9, 8), (4, 2), (1, the unreadable one).
    assert [lastmod for _, lastmod in parse_index(body)] == [
        "2024-03-09T00:00:00+00:00",
        "2024-03-04T00:00:00+00:00",
        "2024-03-01T00:00:00+00:00",
    ]


class ByTitle(ArticleSource):
    lastmod = "title"


class ByFlag(ArticleSource):
    lastmod = "published"


class ByKey(ArticleSource):
    lastmod = "pk"


@pytest.mark.parametrize(("source", "value"), [(ByTitle, "'x'"), (ByFlag, "True"), (ByKey, None)])
@pytest.mark.parametrize("path", ["/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"])
def test_a_lastmod_field_that_is_no_date_skips_its_rows_and_is_never_a_500(
    client: Client,
    sources: Sources,
    caplog: pytest.LogCaptureFixture,
    source: type[ArticleSource],
    value: str | None,
    path: str,
) -> None:
    # Found by trying: the page's MAX() of a text, boolean or integer field went
    # to Last-Modified, and every page of the section was a 500 (sitemapkit.E063
    # now reports the declaration; the run time skips and logs, as documented).
    sources(source)
    article = ArticleFactory.create(slug="a", title="x")
    status, body, headers = fetch(client, "/sitemap.xml")
    assert status == 200
    assert parse_index(body) == [(f"{SITE}/sitemap-articles-1.xml", None)]
    assert "Last-Modified" not in headers
    assert fetch(client, path)[0] == 404
    shown = value if value is not None else repr(article.pk)
    assert caplog.messages[:2] == [
        f"Skipped pk={article.pk} of source 'articles': lastmod {shown} is not a date or datetime.",
        "Page 1 of sitemap source 'articles' has no valid entry (see the warnings above); "
        "it is answered with 404.",
    ]
    # Once its 404 is known, the index leaves the page out (sources/unanswered.py).
    assert fetch(client, "/sitemap.xml")[0] == 404


class DatedSome(ArticleSource):
    def lastmod(self, row: dict[str, Any]) -> object:  # type: ignore[override]
        return at(2) if row["slug"] == "dated" else row["slug"]


def test_a_lastmod_method_returning_no_date_skips_that_row_and_is_logged(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(DatedSome)
    ArticleFactory.create(slug="dated")
    other = ArticleFactory.create(slug="soon")
    assert get_urls(client, "/sitemap-articles-1.xml") == [
        Url(f"{SITE}/articles/dated/", "2024-03-02T00:00:00+00:00", "weekly", "0.6")
    ]
    assert (
        f"Skipped pk={other.pk} of source 'articles': lastmod 'soon' is not a date or datetime."
        in caplog.messages
    )


class EveryPriorityInvalid(ArticleSource):
    changefreq = Field("title")  # type: ignore[assignment]

    def priority(self, row: dict[str, Any]) -> object:  # type: ignore[override]
        return 7.0


def test_a_page_whose_every_priority_and_changefreq_is_invalid_lists_every_url(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(EveryPriorityInvalid)
    made = [ArticleFactory.create(slug=slug, title="Weekly", updated_at=None) for slug in "abc"]
    assert get_urls(client, "/sitemap-articles-1.xml") == [
        Url(f"{SITE}/articles/{slug}/") for slug in "abc"
    ]
    # Logged once per reason and page, not per row.
    first = made[0].pk
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.levelname == "WARNING"] == [
        (
            "WARNING",
            f"Left out the changefreq of pk={first} of source 'articles': 'Weekly' is not one "
            "of always, hourly, daily, weekly, monthly, yearly, never.",
        ),
        (
            "WARNING",
            f"Left out the priority of pk={first} of source 'articles': 7.0 is outside 0.0 to 1.0.",
        ),
        (
            "WARNING",
            "Left out the changefreq of 2 more rows of source 'articles' on page 1 for the same "
            f"reason as pk={first} (3 in all).",
        ),
        (
            "WARNING",
            "Left out the priority of 2 more rows of source 'articles' on page 1 for the same "
            f"reason as pk={first} (3 in all).",
        ),
    ]


@override_settings(SITEMAPKIT_STRICT=True)
def test_an_invalid_priority_raises_in_strict_mode(client: Client, sources: Sources) -> None:
    sources(EveryPriorityInvalid)
    article = ArticleFactory.create(slug="a", title="weekly")
    with pytest.raises(InvalidEntry) as raised:
        client.get("/sitemap-articles-1.xml")
    assert str(raised.value) == (
        f"Left out the priority of pk={article.pk} of source 'articles': 7.0 is outside 0.0 to 1.0."
    )


class PriorityOutOfRange(ArticleSource):
    priority = 2


def test_a_constant_priority_out_of_range_leaves_every_url_without_it(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    # sitemapkit.E009 reports it at start-up; a server that runs no checks (gunicorn)
    # answered every page and the index with a 500.
    sources(PriorityOutOfRange)
    ArticleFactory.create(slug="a", updated_at=None)
    assert get_urls(client, "/sitemap-articles-1.xml") == [
        Url(f"{SITE}/articles/a/", None, "weekly")
    ]
    assert fetch(client, "/sitemap.xml")[0] == 200
    assert set(caplog.messages) == {
        "Source 'articles' declares a priority no sitemap can hold: priority 2 is outside "
        "0.0 to 1.0; every URL of the section is listed without it."
    }
    settings.SITEMAPKIT_STRICT = True
    with pytest.raises(ImproperlyConfigured) as raised:
        client.get("/sitemap-articles-1.xml")
    assert str(raised.value) == (
        "Source 'articles' declares a priority no sitemap can hold: priority 2 is outside "
        "0.0 to 1.0. Fix the class attribute (manage.py check names the fix)."
    )
