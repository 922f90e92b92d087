"""The HTML sitemap for visitors: ``django_sitemapkit.html_urls`` (views/visitors.py)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client, override_settings
from factories import ArticleFactory
from html_pages import (
    IndexedSection,
    Link,
    Listed,
    document,
    found,
    index_sections,
    page_rows,
    pager,
    text,
)
from sitemap_xml import fetch, parse_index, parse_urlset, streamed
from testapp.models import Photo
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import InvalidEntry, Related
from django_sitemapkit.encoding.html import href, style_sheet
from django_sitemapkit.views.http import NO_SOURCES

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_html")]
SITE = "https://www.example.com"
UTC = dt.timezone.utc
Sources = Callable[..., None]


def policy() -> str:
    digest = base64.b64encode(hashlib.sha256(style_sheet().encode()).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


class Titled(ArticleSource):
    title = "title"


def test_the_index_lists_each_section_under_a_heading_with_its_pages(
    client: Client, sources: Sources, settings: Any
) -> None:
    settings.SITEMAPKIT_HTML_PAGE_SIZE = 2
    sources(Titled, PagesSource)
    for day in (1, 5, 3):
        ArticleFactory.create(updated_at=dt.datetime(2024, 3, day, 12, tzinfo=UTC))
    status, body, headers = fetch(client, "/sitemap.html")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == policy()
    page = document(body)
    assert text(found(page, "//h1")[0]) == "Sitemap"
    assert text(found(page, "//main/p")[0]) == "5 pages in 2 sections."
    assert index_sections(page) == [
        IndexedSection(
            "Articles",
            "3 pages, updated March 5, 2024",
            [
                Link("1\N{EN DASH}2", "/sitemap-articles-1.html"),
                Link("3", "/sitemap-articles-2.html"),
            ],
        ),
        IndexedSection("Pages", "2 pages", [Link("1\N{EN DASH}2", "/sitemap-pages-1.html")]),
    ]
    (updated,) = found(page, "//section/p/time")
    assert updated.get("datetime") == "2024-03-05T12:00:00+00:00"
    # Nothing of the crawlers' columns, nor the XML's page size: the XML has one page.
    assert [loc for loc, _ in parse_index(fetch(client, "/sitemap.xml")[1])] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-pages-1.xml",
    ]
    for word in (b"changefreq", b"Change frequency", b"Priority", b".xml"):
        assert word not in body


def test_a_page_lists_titles_and_readable_dates_and_nothing_for_crawlers(
    client: Client, sources: Sources
) -> None:
    sources(Titled)
    ArticleFactory.create(slug="a&b'c", title="Fish & <chips>", updated_at=None)
    ArticleFactory.create(slug="untitled", title="", updated_at=dt.datetime(2024, 3, 1, tzinfo=UTC))
    status, body, headers = fetch(client, "/sitemap-articles-1.html")
    assert status == 200
    assert headers["Content-Security-Policy"] == policy()
    page = document(body)
    assert text(found(page, "//h1")[0]) == "Articles"
    assert [text(element) for element in found(page, "//title")] == ["Articles · Sitemap"]
    assert page_rows(page) == [
        Listed(Link("Fish & <chips>", "/articles/a&b'c/"), None),
        # No title: the URL's path stands for it.
        Listed(
            Link("/articles/untitled/", "/articles/untitled/"),
            ("2024-03-01T00:00:00+00:00", "March 1, 2024"),
        ),
    ]
    assert pager(page) == {}
    # Escaped in the markup: nothing of the data can open a tag or end an attribute.
    assert b"<chips>" not in body
    assert b"Fish &amp; &lt;chips&gt;" in body
    assert b"a&amp;b&#x27;c" in body
    assert found(page, "//script | //*[@src] | //table") == []
    for word in (b"weekly", b"0.6", b"changefreq", b"priority"):
        assert word not in body


class WithPhotos(Titled):
    name = "photos"
    images = Related("photos", loc="url")


def test_a_page_lists_the_xml_page_s_urls_with_their_values(
    client: Client, sources: Sources
) -> None:
    sources(WithPhotos)
    first = ArticleFactory.create(slug="a&b'c", updated_at=dt.datetime(2024, 3, 1, tzinfo=UTC))
    ArticleFactory.create(slug="<script>", title="<script>", updated_at=None)
    Photo.objects.create(article=first, url="/1.png")
    xml = parse_urlset(fetch(client, "/sitemap-photos-1.xml")[1])
    body = fetch(client, "/sitemap-photos-1.html")[1]
    # Each <loc> of the XML page in its order, linked site-relative; its lastmod
    # the machine value of its date. No image is shown, nor loaded.
    assert [
        (row.link.href, row.lastmod and row.lastmod[0]) for row in page_rows(document(body))
    ] == [(url.loc.removeprefix(SITE), url.lastmod) for url in xml]
    assert xml[0].loc == f"{SITE}/articles/a&b'c/"
    assert b"<script>" not in body
    assert b"1.png" not in body


def test_html_pages_answer_404_where_there_is_no_such_page(
    client: Client, sources: Sources
) -> None:
    sources(ArticleSource)
    ArticleFactory.create()
    for path in ("/sitemap-nope-1.html", "/sitemap-articles-2.html", "/sitemap-articles-0.html"):
        assert client.get(path).status_code == 404, path


def test_no_rows_no_index(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    assert client.get("/sitemap.html").status_code == 404


@override_settings(SITEMAPKIT_BASE_URL="https://www.example.com:8443", FORCE_SCRIPT_NAME="/blog/")
def test_links_are_site_relative_and_the_xml_stays_absolute(
    client: Client, sources: Sources
) -> None:
    sources(ArticleSource)
    ArticleFactory.create(slug="a")
    site = "https://www.example.com:8443"
    index = document(fetch(client, "/sitemap.html")[1])
    assert index_sections(index)[0].pages == [Link("1", "/blog/sitemap-articles-1.html")]
    page = document(fetch(client, "/sitemap-articles-1.html")[1])
    assert page_rows(page)[0].link.href == "/blog/articles/a/"
    assert [a.get("href") for a in found(page, "//p[@class='sitemap-crumbs']/a")] == [
        "/blog/sitemap.html"
    ]
    assert parse_urlset(fetch(client, "/sitemap-articles-1.xml")[1])[0].loc == (
        f"{site}/blog/articles/a/"
    )


def test_href() -> None:
    assert href(f"{SITE}/a/?q=1#f", SITE) == "/a/?q=1#f"
    assert href(SITE, SITE) == "/"
    assert href(f"{SITE}?q", SITE) == "/?q"
    # Another origin stays absolute, one whose name merely starts alike too.
    assert href("https://cdn.example.net/a/", SITE) == "https://cdn.example.net/a/"
    assert href(f"{SITE}.evil.example/a/", SITE) == f"{SITE}.evil.example/a/"
    assert href(f"{SITE}:8443/a/", SITE) == f"{SITE}:8443/a/"


def test_href_of_a_path_starting_with_two_slashes_keeps_the_origin() -> None:
    # Written "//evil.example/x", the link would be to the host evil.example
    # (RFC 3986 section 4.2); with its origin it stays on the site.
    assert href(f"{SITE}//evil.example/x", SITE) == f"{SITE}//evil.example/x"
    assert href(f"{SITE}//", SITE) == f"{SITE}//"


class OffSite(ArticleSource):
    """Locations that dot segments turn into a path starting with '//'."""

    def location(self, row: Any) -> str:
        return f"{row['slug']}/x"


def test_a_location_whose_path_starts_with_two_slashes_is_linked_nowhere(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(OffSite)
    ArticleFactory.create(slug="/articles")
    evil = ArticleFactory.create(slug="/blog/..//evil.example")
    body = fetch(client, "/sitemap-articles-1.html")[1]
    assert [row.link.href for row in page_rows(document(body))] == ["/articles/x"]
    assert b"evil.example" not in body
    message = (
        f"Skipped pk={evil.pk} of source 'articles': location '/blog/..//evil.example/x' "
        "resolves to the path '//evil.example/x'"
    )
    assert any(line.startswith(message) for line in caplog.messages)
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(InvalidEntry) as raised:
        fetch(client, "/sitemap-articles-1.html")
    assert str(raised.value).startswith(message)


def test_with_no_source_registered_the_404_says_so(client: Client, sources: Sources) -> None:
    # Its exact text is in test_views.py.
    sources()
    for path in ("/sitemap.html", "/sitemap-articles-1.html"):
        response = client.get(path)
        assert (response.status_code, response["Content-Type"], response.content.decode()) == (
            404,
            "text/plain; charset=utf-8",
            NO_SOURCES + "\n",
        ), path


def test_head_conditional_get_and_other_methods(
    client: Client, sources: Sources, settings: Any
) -> None:
    sources(ArticleSource)
    ArticleFactory.create()
    for path in ("/sitemap.html", "/sitemap-articles-1.html"):
        response = client.get(path)
        streamed(response)
        etag = response["ETag"]
        assert "X-Robots-Tag" not in response  # a page for people
        head = client.head(path)
        assert (head.status_code, head.content, head["ETag"]) == (200, b"", etag)
        again = client.get(path, headers={"if-none-match": etag})
        assert (again.status_code, again["Content-Security-Policy"]) == (304, policy())
        assert client.post(path).status_code == 405
        # The XML has its own validator, and so has another page size.
        xml = client.get(path.replace(".html", ".xml"))
        streamed(xml)
        assert xml["ETag"] != etag
        settings.SITEMAPKIT_HTML_PAGE_SIZE = 7
        resized = client.get(path, headers={"if-none-match": etag})
        # Read to its end, which closes the page's rows: an unread stream would
        # leave PostgreSQL's server-side cursor to the garbage collector, whose
        # close() then fails in a later test's transaction.
        streamed(resized)
        assert resized.status_code == 200
        del settings.SITEMAPKIT_HTML_PAGE_SIZE


def test_html_is_opt_in(client: Client, sources: Sources, settings: Any) -> None:
    settings.ROOT_URLCONF = "testapp.urls"
    sources(ArticleSource)
    ArticleFactory.create()
    assert client.get("/sitemap.html").status_code == 404
    # The XML never points at the HTML.
    assert b".html" not in fetch(client, "/sitemap.xml")[1]
    assert b".html" not in fetch(client, "/sitemap-articles-1.xml")[1]


class ByTitle(ArticleSource):
    lastmod = "title"


def test_a_lastmod_field_that_is_no_date_is_never_a_500(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by trying: the HTML page, like the XML, answered 500 (sitemapkit.E063).
    sources(ByTitle)
    article = ArticleFactory.create(title="x")
    assert fetch(client, "/sitemap-articles-1.html")[0] == 404
    assert (
        f"Skipped pk={article.pk} of source 'articles': lastmod 'x' is not a date or datetime."
        in caplog.messages
    )
    status, body, _ = fetch(client, "/sitemap.html")
    assert status == 200
    assert index_sections(document(body))[0].summary == "1 page"


class EveryPriorityInvalid(Titled):
    def priority(self, row: dict[str, Any]) -> object:  # type: ignore[override]
        return "high"


def test_a_page_whose_every_priority_is_invalid_lists_every_row(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(EveryPriorityInvalid)
    made = [ArticleFactory.create(slug=slug, title=slug.upper()) for slug in "abc"]
    status, body, _ = fetch(client, "/sitemap-articles-1.html")
    assert status == 200
    assert [(row.link.href, row.link.text) for row in page_rows(document(body))] == [
        (f"/articles/{slug}/", slug.upper()) for slug in "abc"
    ]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"Left out the priority of pk={made[0].pk} of source 'articles': 'high' is not a number.",
        "Left out the priority of 2 more rows of source 'articles' on page 1 for the same "
        f"reason as pk={made[0].pk} (3 in all).",
    ]
