"""django_sitemapkit.compat against django.contrib.sitemaps' own views, over one dict."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from contrib_side_by_side import SITE, at, serve_side_by_side, tricky_articles
from django.contrib.sitemaps import GenericSitemap, Sitemap
from django.contrib.sitemaps import views as contrib_views
from django.core.paginator import Paginator
from django.db import connection
from django.test import Client, RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils.http import http_date
from factories import ArticleFactory
from lxml import etree
from sitemap_xml import NS, Url, fetch, parse_index, parse_urlset
from testapp.contrib_sitemaps import SITEMAPS
from testapp.models import Article

from django_sitemapkit import InvalidEntry
from django_sitemapkit.compat import index, sitemap

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat")]


@pytest.fixture(autouse=True)
def side_by_side(settings: Any) -> None:
    serve_side_by_side(settings)


@pytest.fixture
def articles() -> list[Article]:
    return tricky_articles()


def contrib_locs(client: Client, url: str) -> tuple[int, set[str]]:
    response = client.get(url, secure=True)
    if response.status_code != 200:
        return response.status_code, set()
    root = etree.fromstring(response.content)
    return 200, {loc.text or "" for loc in root.iterfind(".//sm:loc", NS)}


def our_locs(client: Client, url: str) -> tuple[int, set[str]]:
    status, body, _ = fetch(client, url)
    if status != 200:
        return status, set()
    return 200, {url.loc for url in parse_urlset(body)}


def skipped_loc(article: Article) -> str:
    return f"{SITE}/articles/{article.slug}/"


@pytest.mark.parametrize(
    "page",
    [
        "sitemap-articles.xml",
        "sitemap-articles.xml?p=2",
        "sitemap-articles.xml?p=3",
        "sitemap-static.xml",
        "sitemap-generic.xml",
        "sitemap-own.xml",
        "all.xml",
    ],
)
def test_pages_list_contribs_locations(client: Client, articles: list[Article], page: str) -> None:
    status, expected = contrib_locs(client, f"/contrib/{page}")
    assert status == 200
    assert our_locs(client, f"/compat/{page}") == (200, expected)


def test_tricky_values_are_escaped_once_and_percent_encoded(
    client: Client, articles: list[Article]
) -> None:
    _, body, _ = fetch(client, "/compat/sitemap-articles.xml")
    assert b"/articles/a&amp;b%3Cc%3E&apos;d%22e/</loc>" in body
    assert b"/articles/caf%C3%A9-%C3%BC/</loc>" in body
    urls = parse_urlset(body)
    assert [(url.lastmod, url.priority) for url in urls] == [
        ("2024-03-01T12:00:00+00:00", "0.8"),
        (None, None),
        ("2024-03-03T12:00:00+00:00", None),
    ]


def test_an_invalid_priority_is_left_out_and_logged_its_url_kept(
    client: Client, articles: list[Article], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        status, body, _ = fetch(client, "/compat/sitemap-articles.xml")
    assert status == 200
    assert parse_urlset(body)[2] == Url(
        skipped_loc(articles[2]), "2024-03-03T12:00:00+00:00", "weekly"
    )
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == [
        f"Left out the priority of pk={articles[2].pk} of source 'articles': 1.5 is outside "
        "0.0 to 1.0."
    ]


def test_strict_mode_raises(client: Client, articles: list[Article], settings: Any) -> None:
    settings.SITEMAPKIT_STRICT = True
    with pytest.raises(
        InvalidEntry, match=r"^Left out the priority of pk=\d+ of source 'articles': 1\.5 "
    ):
        client.get("/compat/sitemap-articles.xml")


@pytest.mark.parametrize(
    "page",
    [
        "sitemap-nowhere.xml",
        "sitemap-articles.xml?p=4",
        "sitemap-articles.xml?p=0",
        "sitemap-articles.xml?p=-1",
        "sitemap-articles.xml?p=two",
        "sitemap-articles.xml?p=2.5",
        "sitemap-articles.xml?p=",
        "sitemap-static.xml?p=2",
        "all.xml?p=2",
    ],
)
def test_same_404s_as_contrib(client: Client, articles: list[Article], page: str) -> None:
    assert client.get(f"/contrib/{page}", secure=True).status_code == 404
    assert client.get(f"/compat/{page}").status_code == 404


def test_an_empty_section_is_a_404_and_left_out_of_the_index(
    client: Client, articles: list[Article]
) -> None:
    # contrib answers an empty <urlset>, which the schema refuses.
    assert contrib_locs(client, "/contrib/sitemap-empty.xml") == (200, set())
    assert client.get("/compat/sitemap-empty.xml").status_code == 404
    contrib = parse_index(client.get("/contrib/sitemap.xml", secure=True).content)
    assert f"{SITE}/contrib/sitemap-empty.xml" in [loc for loc, _ in contrib]


def test_index_lists_contribs_pages(client: Client, articles: list[Article]) -> None:
    contrib = client.get("/contrib/sitemap.xml", secure=True).content
    expected = [
        loc.replace("/contrib/", "/compat/")
        for loc, _ in parse_index(contrib)
        if not loc.endswith("-empty.xml")
    ]
    status, body, headers = fetch(client, "/compat/sitemap.xml")
    assert status == 200
    ours = parse_index(body)
    assert [loc for loc, _ in ours] == expected
    assert ours == [
        # Each page's newest, read from its items, the one skipped for its priority
        # too; none for a page with an item without one (contrib's get_latest_lastmod()
        # is None then).
        (f"{SITE}/compat/sitemap-articles.xml", None),
        (f"{SITE}/compat/sitemap-articles.xml?p=2", "2024-03-06T12:00:00+00:00"),
        (f"{SITE}/compat/sitemap-articles.xml?p=3", "2024-03-07T12:00:00+00:00"),
        (f"{SITE}/compat/sitemap-static.xml", None),
        # GenericSitemap: Max(date_field) in the database, for each of its pages.
        (f"{SITE}/compat/sitemap-generic.xml", "2024-03-07T12:00:00+00:00"),
        # No lastmod on the class: none in the index (contrib's rule), whatever get_urls() says.
        (f"{SITE}/compat/sitemap-own.xml", None),
    ]
    assert "Last-Modified" not in headers  # the static section has no lastmod
    assert headers["X-Robots-Tag"] == "noindex, noodp, noarchive"


def test_the_robots_header_is_contribs_unless_the_project_sets_one(
    client: Client, articles: list[Article]
) -> None:
    # Whatever this app's own default: the drop-in answers as contrib does.
    contrib = fetch(client, "/contrib/sitemap.xml")[2]["X-Robots-Tag"]
    assert fetch(client, "/compat/sitemap.xml")[2]["X-Robots-Tag"] == contrib
    assert fetch(client, "/compat/sitemap-articles.xml")[2]["X-Robots-Tag"] == contrib
    with override_settings(SITEMAPKIT_X_ROBOTS_TAG="noindex, nofollow"):
        assert fetch(client, "/compat/sitemap.xml")[2]["X-Robots-Tag"] == "noindex, nofollow"


@pytest.mark.parametrize(
    "url",
    [
        "/compat/sitemap.xml",
        "/compat/sitemap-articles.xml?p=2",
        "/compat/sitemap-own.xml",
        "/compat/all.xml",
        "/compat/other.xml",
        "/compat/other-http.xml",
    ],
)
def test_the_host_header_changes_nothing(client: Client, articles: list[Article], url: str) -> None:
    first = fetch(client, url)
    second = fetch(client, url, Host="www.example.com", Accept_Language="fr")
    third = client.get(url, secure=True, headers={"Host": "testserver"})
    assert first[0] == 200
    assert first[1] == second[1] == third.content
    assert first[2].get("ETag") == second[2].get("ETag") == third.get("ETag")


def test_conditional_requests(client: Client, articles: list[Article]) -> None:
    status, _, headers = fetch(client, "/compat/sitemap-articles.xml?p=2")
    assert status == 200
    # Every entry of the page has a lastmod: the newest is Last-Modified.
    assert headers["Last-Modified"] == http_date(at(6).timestamp())
    assert headers["ETag"].startswith('W/"')
    url = "/compat/sitemap-articles.xml?p=2"
    assert client.get(url, headers={"If-None-Match": headers["ETag"]}).status_code == 304
    modified = {"If-Modified-Since": headers["Last-Modified"]}
    assert client.get(url, headers=modified).status_code == 304
    # Page 1 has an entry without lastmod, so no Last-Modified (contrib's rule too).
    assert "Last-Modified" not in fetch(client, "/compat/sitemap-articles.xml")[2]
    assert client.head(url).status_code == 200
    assert client.post(url).status_code == 405


@pytest.mark.parametrize("section", ["absolute", "absolute-own"])
def test_an_absolute_location_is_kept_on_the_site_only(
    client: Client, caplog: pytest.LogCaptureFixture, section: str
) -> None:
    status, body, headers = fetch(client, f"/compat/other-{section}.xml")
    assert status == 200
    assert headers["Content-Type"] == "text/xml; charset=utf-8"
    assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/absolute/"]
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == [
        f"Skipped {'item' if section == 'absolute' else 'URL'} "
        f"'https://elsewhere.example.org/foreign/' of source {section!r}: location "
        "'https://elsewhere.example.org/foreign/' is not on 'https://www.example.com'"
        ", the site's base URL; a sitemap lists URLs of one host only."
    ]


@pytest.mark.parametrize("section", ["http", "http-own"])
def test_a_class_protocol_gives_way_to_the_base_url(
    client: Client, caplog: pytest.LogCaptureFixture, section: str
) -> None:
    status, body, _ = fetch(client, f"/compat/other-{section}.xml")
    assert status == 200
    assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/", f"{SITE}/about/"]
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == [
        f"Sitemap section {section!r} sets protocol = 'http'; its locations are on "
        "https://www.example.com (the site's base URL), whose scheme is used instead."
    ]


def test_no_section_with_items_is_a_404(client: Client) -> None:
    # No article: only the static, own, absolute... sections have items.
    assert client.get("/compat/sitemap-articles.xml").status_code == 404
    assert client.get("/compat/sitemap-generic.xml").status_code == 404
    _, body, _ = fetch(client, "/compat/sitemap.xml")
    assert [loc for loc, _ in parse_index(body)] == [
        f"{SITE}/compat/sitemap-static.xml",
        f"{SITE}/compat/sitemap-own.xml",
    ]


def selects_of(client: Client, url: str, **headers: str) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, headers=headers)
    # (On PostgreSQL each read of a page is a server-side cursor of its own name:
    # compare what follows SELECT.)
    return response.status_code, [
        query["sql"].partition("SELECT")[2] for query in queries.captured_queries
    ]


def test_a_queryset_is_sliced_and_counted_in_the_database(
    client: Client, articles: list[Article]
) -> None:
    status, selects = selects_of(client, "/compat/sitemap-articles.xml?p=2")
    assert status == 200
    # The count, then the page once: its lastmod() is a method, and the page is
    # written whole before its headers, its lastmods read on the way.
    assert len(selects) == 2
    assert "COUNT(*)" in selects[0]
    assert selects[1].endswith("LIMIT 3 OFFSET 3")


def test_the_index_reads_a_lastmod_methods_items_in_one_query(
    client: Client, articles: list[Article]
) -> None:
    """As contrib's get_latest_lastmod() reads them: one pass over the items, however
    many pages they make (three here), not a query a page."""
    status, selects = selects_of(client, "/compat/sitemap.xml")
    assert status == 200
    # The articles' count, then their seven items at once (the generic section's
    # count and Max follow).
    assert "COUNT(*)" in selects[0]
    key = f"{connection.ops.quote_name('testapp_article')}.{connection.ops.quote_name('id')}"
    assert selects[1].endswith(f"ORDER BY {key} ASC LIMIT 7")
    assert [sql for sql in selects if "LIMIT" in sql] == [selects[1]]


def test_a_conditional_request_reads_the_lastmods_first_and_a_match_writes_nothing(
    client: Client, articles: list[Article]
) -> None:
    response = client.get("/compat/sitemap-articles.xml?p=2")
    etag, page = response["ETag"], selects_of(client, "/compat/sitemap-articles.xml?p=2")[1]
    # No match: the page read for its lastmods, then again to be written.
    status, selects = selects_of(client, "/compat/sitemap-articles.xml?p=2", If_None_Match='"x"')
    assert (status, selects) == (200, [page[0], page[1], page[1]])
    # A match: the read of its lastmods alone, the same ETag as the plain GET's.
    status, selects = selects_of(client, "/compat/sitemap-articles.xml?p=2", If_None_Match=etag)
    assert (status, selects) == (304, page)


def test_every_section_in_one_document(client: Client, articles: list[Article]) -> None:
    _, body, _ = fetch(client, "/compat/all.xml")
    locs = [url.loc for url in parse_urlset(body)]
    # contrib's order: the sections' in the dict, each page's items in order.
    assert locs[:3] == [
        f"{SITE}/articles/a&b%3Cc%3E'd%22e/",
        f"{SITE}/articles/caf%C3%A9-%C3%BC/",
        f"{SITE}/articles/too-high/",
    ]
    assert locs[3:5] == [f"{SITE}/", f"{SITE}/about/"]
    assert locs[-2:] == [f"{SITE}/about/", f"{SITE}/own/"]
    assert len(locs) == 3 + 2 + 7 + 2


def test_50001_items_make_two_pages(client: Client) -> None:
    _, body, _ = fetch(client, "/compat/many.xml")
    assert [loc for loc, _ in parse_index(body)] == [
        f"{SITE}/compat/many-many.xml",
        f"{SITE}/compat/many-many.xml?p=2",
    ]
    _, body, _ = fetch(client, "/compat/many-many.xml?p=2")
    assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/n/50000/"]
    _, body, _ = fetch(client, "/compat/many-many.xml")
    assert body.count(b"<url>") == 50_000


class FailingSitemap(Sitemap):  # type: ignore[type-arg]
    """Its 3,000th item cannot be located: past the first chunk of the page."""

    def items(self) -> list[int]:
        return list(range(5_000))

    def location(self, item: int) -> str:
        if item == 3_000:
            raise RuntimeError("the item is gone")
        return f"/n/{item}/"


def test_a_failure_while_the_page_is_written_is_the_view_s_exception(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The page is written whole before the response is made, as contrib's: a failure
    past the first chunk is the view's exception (a 500, as contrib's), never a
    200 with a document cut short."""
    with pytest.raises(RuntimeError, match="the item is gone"):
        sitemap(rf.get("/sitemap.xml"), {"failing": FailingSitemap}, section="failing")
    assert [r for r in caplog.records if r.name == "django_sitemapkit"] == []


class SometimesDated(Sitemap):  # type: ignore[type-arg]
    """A lastmod that is no date for one item of two."""

    def items(self) -> list[int]:
        return [1, 2]

    def location(self, item: int) -> str:
        return f"/n/{item}/"

    def lastmod(self, item: int) -> object:
        return at(item) if item == 1 else "yesterday"


def test_a_lastmod_that_is_no_date_is_left_out_and_logged_its_url_kept(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    response = sitemap(rf.get("/sitemap.xml"), {"dated": SometimesDated}, section="dated")
    body = response.content  # type: ignore[attr-defined]
    assert response.status_code == 200
    # A URL is written without a lastmod: the page has no Last-Modified, as contrib's
    # has none when one of its URLs has no lastmod.
    assert "Last-Modified" not in response
    assert parse_urlset(body) == [
        Url(f"{SITE}/n/1/", "2024-03-01T12:00:00+00:00"),
        Url(f"{SITE}/n/2/"),
    ]
    assert caplog.messages == [
        "Left out the lastmod of item 2 of source 'dated': 'yesterday' is not a date or datetime."
    ]
    caplog.clear()
    response = index(
        rf.get("/sitemap.xml"), {"dated": SometimesDated}, sitemap_url_name="compat-section"
    )
    assert response.status_code == 200
    assert parse_index(response.content) == [  # type: ignore[attr-defined]
        (f"{SITE}/compat/sitemap-dated.xml", None)
    ]
    assert "Last-Modified" not in response
    # A GenericSitemap's date_field that holds no date: every URL kept, none dated.
    caplog.clear()
    article = ArticleFactory.create(title="x")
    titled = GenericSitemap({"queryset": Article.objects.order_by("pk"), "date_field": "title"})
    response = sitemap(rf.get("/sitemap.xml"), {"titled": titled}, section="titled")
    assert response.status_code == 200
    assert parse_urlset(response.content) == [  # type: ignore[attr-defined]
        Url(f"{SITE}{article.get_absolute_url()}")
    ]
    assert caplog.messages == [
        f"Left out the lastmod of pk={article.pk} of source 'titled': 'x' is not a date or "
        "datetime."
    ]


def test_robots_txt_is_not_read_by_the_drop_in(
    client: Client, articles: list[Article], tmp_path: Path
) -> None:
    """SITEMAPKIT_ROBOTS = "exclude" judges the app's own documents: the drop-in lists
    what contrib lists, and never reads robots.txt (here a file that is not there)."""
    before = our_locs(client, "/compat/sitemap-articles.xml")
    with override_settings(
        SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_ROBOTS_FILE=tmp_path / "missing.txt"
    ):
        assert our_locs(client, "/compat/sitemap-articles.xml") == before
        assert client.get("/compat/sitemap.xml", secure=True).status_code == 200


class FutureDated(Sitemap):  # type: ignore[type-arg]
    """A lastmod in the future for one item of two."""

    def items(self) -> list[int]:
        return [1, 2]

    def location(self, item: int) -> str:
        return f"/n/{item}/"

    def lastmod(self, item: int) -> dt.datetime:
        return at(item) if item == 1 else FUTURE


FUTURE = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=2)


def test_a_lastmod_in_the_future_is_left_out_as_the_engine_s_sources_leave_it_out(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    response = sitemap(rf.get("/sitemap.xml"), {"dated": FutureDated}, section="dated")
    body = response.content  # type: ignore[attr-defined]
    assert [(url.loc, url.lastmod) for url in parse_urlset(body)] == [
        (f"{SITE}/n/1/", at(1).isoformat()),
        (f"{SITE}/n/2/", None),
    ]
    written = FUTURE.replace(microsecond=0).isoformat()
    assert caplog.messages == [
        f"Left out the lastmod of item 2 of source 'dated': {written} is later than now, and "
        "search engines refuse a date in the future (a clock running ahead, or a naive "
        "datetime saved in another time zone than TIME_ZONE?)."
    ]
    # Nor does the index date the page by it: it gives the page no date.
    response = index(
        rf.get("/sitemap.xml"), {"dated": FutureDated}, sitemap_url_name="compat-section"
    )
    assert parse_index(response.content) == [  # type: ignore[attr-defined]
        (f"{SITE}/compat/sitemap-dated.xml", None)
    ]


class Lazy(Mapping[str, Any]):
    """A project's sitemaps, made on first use: iterated as contrib's views iterate it,
    and no ``len()`` (here it would build and count every section)."""

    def __init__(self, sitemaps: Mapping[str, Any]) -> None:
        self.sitemaps = sitemaps
        self.asked: list[str] = []

    def __getitem__(self, name: str) -> Any:
        self.asked.append(f"[{name!r}]")
        return self.sitemaps[name]

    def __iter__(self) -> Iterator[str]:
        self.asked.append("iter")
        return iter(self.sitemaps)

    def __len__(self) -> int:
        raise AssertionError("len() of the sitemaps mapping")

    def __contains__(self, name: object) -> bool:
        self.asked.append(f"in {name!r}")
        return name in self.sitemaps


def test_a_lazy_mapping_without_len_is_served_as_contrib_reads_it(
    rf: RequestFactory, articles: list[Article]
) -> None:
    lazy = Lazy({"static": SITEMAPS["static"], "own": SITEMAPS["own"]})
    response = index(rf.get("/sitemap.xml"), lazy, sitemap_url_name="compat-section")
    assert response.status_code == 200
    assert [loc for loc, _ in parse_index(response.content)] == [  # type: ignore[attr-defined]
        f"{SITE}/compat/sitemap-static.xml",
        f"{SITE}/compat/sitemap-own.xml",
    ]
    assert lazy.asked == ["iter", "['static']", "['own']"]
    lazy.asked.clear()
    response = sitemap(rf.get("/sitemap-own.xml"), lazy, section="own")
    assert response.status_code == 200
    assert [url.loc for url in parse_urlset(response.content)] == [  # type: ignore[attr-defined]
        f"{SITE}/about/",
        f"{SITE}/own/",
    ]
    assert lazy.asked == ["in 'own'", "['own']"]
    lazy.asked.clear()
    response = sitemap(rf.get("/sitemap.xml"), lazy)
    assert response.status_code == 200
    assert len(parse_urlset(response.content)) == 4  # type: ignore[attr-defined]
    assert lazy.asked == ["iter", "['static']", "['own']"]


class OwnPaginatorSitemap(Sitemap):  # type: ignore[type-arg]
    """Its own ``paginator``: pages of two, last item first, whatever ``limit``."""

    def items(self) -> list[int]:
        return list(range(5))

    def location(self, item: int) -> str:
        return f"/n/{item}/"

    @property
    def paginator(self) -> Paginator[int]:
        return Paginator(list(reversed(range(5))), 2)


class OwnItemsSitemap(Sitemap):  # type: ignore[type-arg]
    """Its own ``_items()``: two units an item, as an ``i18n`` class makes its pairs."""

    def items(self) -> list[int]:
        return list(range(2))

    def _items(self) -> list[tuple[int, str]]:
        return [(item, code) for item in self.items() for code in ("en", "fr")]

    def location(self, unit: tuple[int, str]) -> str:
        return f"/{unit[1]}/n/{unit[0]}/"


def answered_locs(response: Any) -> list[str]:
    if hasattr(response, "render"):
        response.render()
    assert response.status_code == 200
    return [str(loc.text) for loc in etree.fromstring(response.content).iter(f"{{{NS['sm']}}}loc")]


@pytest.mark.parametrize(
    ("declared", "pages"),
    [
        (OwnPaginatorSitemap, [["/n/4/", "/n/3/"], ["/n/2/", "/n/1/"], ["/n/0/"]]),
        (OwnItemsSitemap, [["/en/n/0/", "/fr/n/0/", "/en/n/1/", "/fr/n/1/"]]),
    ],
    ids=["paginator", "_items"],
)
def test_a_class_paging_its_own_units_is_paged_as_contrib_pages_it(
    rf: RequestFactory,
    declared: type[Sitemap[Any]],
    pages: list[list[str]],
) -> None:
    """contrib's ``get_urls()`` pages the units of the class's own ``paginator`` and
    ``_items()``: the drop-in lists those pages, and as many in its index."""
    sitemaps: dict[str, Any] = {"numbers": declared}
    expected = [[f"{SITE}{path}" for path in page] for page in pages]
    for number, page in enumerate(expected, start=1):
        request = rf.get("/sitemap.xml", {"p": str(number)}, secure=True)
        assert answered_locs(contrib_views.sitemap(request, sitemaps=sitemaps)) == page
        assert answered_locs(sitemap(request, sitemaps=sitemaps)) == page
    request = rf.get("/sitemap.xml", secure=True)
    theirs = answered_locs(
        contrib_views.index(request, sitemaps, sitemap_url_name="contrib-section")
    )
    ours = answered_locs(index(request, sitemaps, sitemap_url_name="compat-section"))
    assert len(theirs) == len(ours) == len(pages)
    assert [loc.replace("/compat/", "/contrib/") for loc in ours] == theirs


class RaisingSitemap(Sitemap):  # type: ignore[type-arg]
    """A class whose ``items()`` raises, as a bug in a project's queryset would."""

    def items(self) -> list[str]:
        raise RuntimeError("no such column: blog_post.slug")


def test_a_class_that_raises_is_left_out_of_the_index_and_logged(
    rf: RequestFactory, articles: list[Article], caplog: pytest.LogCaptureFixture
) -> None:
    # contrib's index answers 500 for every section; the drop-in lists the others.
    sitemaps = {"static": SITEMAPS["static"], "broken": RaisingSitemap, "own": SITEMAPS["own"]}
    with caplog.at_level(logging.ERROR, logger="django_sitemapkit"):
        response = index(rf.get("/sitemap.xml"), sitemaps, sitemap_url_name="compat-section")
    assert response.status_code == 200
    assert [loc for loc, _ in parse_index(response.content)] == [  # type: ignore[attr-defined]
        f"{SITE}/compat/sitemap-static.xml",
        f"{SITE}/compat/sitemap-own.xml",
    ]
    assert [record.getMessage() for record in caplog.records] == [
        "Sitemap source 'broken' is left out of the index: counting its items raised "
        "RuntimeError: no such column: blog_post.slug"
    ]
