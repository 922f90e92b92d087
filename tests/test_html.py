"""The HTML sitemap for people: ``django_sitemapkit.html_urls``."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client, override_settings
from factories import ArticleFactory
from lxml import html as lxml_html
from sitemap_xml import fetch, parse_index, parse_urlset, streamed
from testapp.models import Photo
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import InvalidEntry, Related
from django_sitemapkit.encoding.html import STYLE, href
from django_sitemapkit.views.http import NO_SOURCES

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_html")]
SITE = "https://www.example.com"
UTC = dt.timezone.utc
Sources = Callable[..., None]
CSP = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    + "'; base-uri 'none'; form-action 'none'"
)


class SmallPages(ArticleSource):
    limit = 2


class WithPhotos(ArticleSource):
    name = "photos"
    images = Related("photos", loc="url")


def text(element: object) -> str:
    assert isinstance(element, lxml_html.HtmlElement)
    return str(element.text_content())


def table(body: bytes) -> tuple[list[str], list[list[Any]]]:
    """The headers and, per body row, each cell's text (and the href of its link)."""
    document = lxml_html.fromstring(body)
    (element,) = document.findall(".//table")
    assert isinstance(element, lxml_html.HtmlElement)
    headers = [text(th) for th in element.findall("./thead/tr/th")]
    rows = []
    for tr in element.findall("./tbody/tr"):
        cells: list[Any] = []
        for cell in tr:
            link = cell.find("a")
            content = text(cell)
            cells.append(content if link is None else (content, link.get("href")))
        rows.append(cells)
    return headers, rows


def test_the_index_lists_every_page_with_its_count_lastmod_and_links(
    client: Client, sources: Sources
) -> None:
    sources(SmallPages, PagesSource)
    for day in (1, 5, 3):
        ArticleFactory.create(updated_at=dt.datetime(2024, 3, day, tzinfo=UTC))
    status, body, headers = fetch(client, "/sitemap.html")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == CSP
    xml_index = parse_index(fetch(client, "/sitemap.xml")[1])
    headers_row, rows = table(body)
    assert headers_row == ["Section page", "URLs", "Last modified", "XML"]
    expected_pages = [("articles", 1, "2"), ("articles", 2, "1"), ("pages", 1, "2")]
    assert rows == [
        [
            # Links to the site's own pages are site-relative: they work on
            # runserver too. The XML's locations are shown whole.
            (f"{section}, page {page}", f"/sitemap-{section}-{page}.html"),
            count,
            lastmod or "",
            (loc, loc.removeprefix(SITE)),
        ]
        for (section, page, count), (loc, lastmod) in zip(expected_pages, xml_index, strict=True)
    ]


def test_a_page_lists_the_xml_page_s_urls_with_their_values(
    client: Client, sources: Sources
) -> None:
    sources(WithPhotos)
    first = ArticleFactory.create(slug="a&b'c", updated_at=dt.datetime(2024, 3, 1, tzinfo=UTC))
    ArticleFactory.create(slug="<script>", updated_at=None)
    Photo.objects.create(article=first, url="/1.png")
    Photo.objects.create(article=first, url="/2.png")
    status, body, _ = fetch(client, "/sitemap-photos-1.html")
    assert status == 200
    xml = parse_urlset(fetch(client, "/sitemap-photos-1.xml")[1])
    headers, rows = table(body)
    assert headers == [
        "URL",
        "Last modified",
        "Change frequency",
        "Priority",
        "Alternates",
        "Images",
    ]
    assert rows == [
        [
            (url.loc, url.loc.removeprefix(SITE)),
            url.lastmod or "",
            url.changefreq,
            url.priority,
            "0",
            images,
        ]
        for url, images in zip(xml, ["2", "0"], strict=True)
    ]
    assert xml[0].loc == f"{SITE}/articles/a&b'c/"
    # Escaped in the markup: nothing of the data can open a tag or end an attribute.
    assert b"<script>" not in body
    assert b"a&amp;b&#x27;c" in body
    document = lxml_html.fromstring(body)
    assert document.findall(".//script") == []
    assert [element.tag for element in document.iter() if element.get("src")] == []


def test_html_pages_answer_404_where_the_xml_does(client: Client, sources: Sources) -> None:
    sources(SmallPages)
    ArticleFactory.create()
    for path in ("/sitemap-nope-1.html", "/sitemap-articles-2.html", "/sitemap-articles-0.html"):
        assert client.get(path).status_code == 404, path
        assert client.get(path.replace(".html", ".xml")).status_code == 404, path


def test_no_rows_no_index(client: Client, sources: Sources) -> None:
    sources(SmallPages)
    assert client.get("/sitemap.html").status_code == 404


@override_settings(SITEMAPKIT_BASE_URL="https://www.example.com:8443", FORCE_SCRIPT_NAME="/blog/")
def test_links_are_site_relative_and_the_xml_stays_absolute(
    client: Client, sources: Sources
) -> None:
    sources(SmallPages)
    ArticleFactory.create(slug="a")
    site = "https://www.example.com:8443"
    _, index_rows = table(fetch(client, "/sitemap.html")[1])
    assert index_rows[0][0] == ("articles, page 1", "/blog/sitemap-articles-1.html")
    assert index_rows[0][3] == (
        f"{site}/blog/sitemap-articles-1.xml",
        "/blog/sitemap-articles-1.xml",
    )
    body = fetch(client, "/sitemap-articles-1.html")[1]
    assert table(body)[1][0][0] == (f"{site}/blog/articles/a/", "/blog/articles/a/")
    back = lxml_html.fromstring(body).find(".//main/p/a")
    assert back is not None
    assert back.get("href") == "/blog/sitemap.html"
    assert parse_urlset(fetch(client, "/sitemap-articles-1.xml")[1])[0].loc == (
        f"{site}/blog/articles/a/"
    )
    assert parse_index(fetch(client, "/sitemap.xml")[1])[0][0] == (
        f"{site}/blog/sitemap-articles-1.xml"
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
    assert table(body)[1][0][0] == (f"{SITE}/articles/x", "/articles/x")
    assert b"evil.example" not in body
    assert [url.loc for url in parse_urlset(fetch(client, "/sitemap-articles-1.xml")[1])] == [
        f"{SITE}/articles/x"
    ]
    assert (
        f"Skipped pk={evil.pk} of source 'articles': location '/blog/..//evil.example/x' "
        "resolves to the path '//evil.example/x', which starts with '//' and so reads as "
        "another host in a link (RFC 3986 section 4.2)." in caplog.messages
    )
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(InvalidEntry) as raised:
        fetch(client, "/sitemap-articles-1.html")
    assert str(raised.value).startswith(
        f"Skipped pk={evil.pk} of source 'articles': location '/blog/..//evil.example/x' "
        "resolves to the path '//evil.example/x'"
    )


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


def test_head_conditional_get_and_other_methods(client: Client, sources: Sources) -> None:
    sources(SmallPages)
    ArticleFactory.create()
    for path in ("/sitemap.html", "/sitemap-articles-1.html"):
        response = client.get(path)
        streamed(response)
        etag = response["ETag"]
        assert "X-Robots-Tag" not in response  # a page for people
        head = client.head(path)
        assert (head.status_code, head.content, head["ETag"]) == (200, b"", etag)
        again = client.get(path, headers={"if-none-match": etag})
        assert again.status_code == 304
        assert client.post(path).status_code == 405
        # The XML has its own validator.
        xml = client.get(path.replace(".html", ".xml"))
        streamed(xml)
        assert xml["ETag"] != etag


def test_html_is_opt_in(client: Client, sources: Sources, settings: Any) -> None:
    settings.ROOT_URLCONF = "testapp.urls"
    sources(SmallPages)
    ArticleFactory.create()
    assert client.get("/sitemap.html").status_code == 404
    # The XML never points at the HTML.
    assert b".html" not in fetch(client, "/sitemap.xml")[1]
    assert b".html" not in fetch(client, "/sitemap-articles-1.xml")[1]


class Translated(ArticleSource):
    name = "translated"
    limit = 4  # two rows of two languages a page
    i18n = True
    alternates = True
    languages = ["en", "fr"]


@pytest.mark.urls("testapp.urls_i18n")
@override_settings(LANGUAGES=[("en", "English"), ("fr", "French")], LANGUAGE_CODE="en")
def test_counts_and_alternates_of_an_i18n_section(client: Client, sources: Sources) -> None:
    sources(Translated)
    for slug in ("a", "b", "c"):
        ArticleFactory.create(slug=slug)
    _, rows = table(fetch(client, "/sitemap.html")[1])
    assert [(row[0][0], row[1]) for row in rows] == [
        ("translated, page 1", "4"),
        ("translated, page 2", "2"),
    ]
    _, rows = table(fetch(client, "/sitemap-translated-2.html")[1])
    assert [(row[0][1], row[4]) for row in rows] == [
        ("/en/articles/c/", "2"),
        ("/fr/articles/c/", "2"),
    ]


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
    assert table(body)[1][0][2] == ""
