"""The base URL from django.contrib.sites when SITEMAPKIT_BASE_URL is unset (sites.py):
every document on https:// and the current Site's domain, whatever the request says,
and a Site that cannot give one answered with a 503 and a logged reason."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from factories import ArticleFactory
from sitemap_xml import fetch, parse_index, parse_urlset

from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.hosts import default_site

pytestmark = pytest.mark.django_db
SHOP = "https://shop.example.org"
COMPAT = pytest.mark.urls("testapp.urls_compat")
# Documents with a validator (the pages section has no lastmod, so no ETag).
DOCUMENTS = ["/sitemap.xml", "/sitemap-articles-1.xml"]
COMPAT_DOCUMENTS = ["/compat/sitemap.xml", "/compat/sitemap-articles.xml", "/compat/all.xml"]


def set_domain(domain: str) -> None:
    """As the admin does: a save, which empties Django's cache of the current Site."""
    site = Site.objects.get(pk=1)
    site.domain = domain
    site.save()


@pytest.fixture(autouse=True)
def shop(settings: Any) -> None:
    settings.SITEMAPKIT_BASE_URL = None
    set_domain("shop.example.org")
    ArticleFactory.create(slug="a")


def locations(client: Client, url: str, **headers: str) -> list[str]:
    status, body, _ = fetch(client, url, **headers)
    assert status == 200, body[:300]
    if b"<sitemapindex" in body[:200]:
        return [loc for loc, _ in parse_index(body)]
    return [entry.loc for entry in parse_urlset(body)]


def test_the_origin_is_https_and_the_sites_domain() -> None:
    assert default_site().origin == Origin("https", "shop.example.org", 443)
    set_domain("Shop.Example.org:8443")
    assert default_site().origin == Origin("https", "shop.example.org", 8443)


def test_the_setting_comes_first(settings: Any) -> None:
    settings.SITEMAPKIT_BASE_URL = "http://localhost:8000"
    assert default_site().origin == Origin("http", "localhost", 8000)


def test_the_documents_are_on_the_sites_domain(client: Client) -> None:
    assert locations(client, "/sitemap.xml") == [
        f"{SHOP}/sitemap-articles-1.xml",
        f"{SHOP}/sitemap-pages-1.xml",
    ]
    assert locations(client, "/sitemap-articles-1.xml") == [f"{SHOP}/articles/a/"]
    assert locations(client, "/sitemap-pages-1.xml") == [f"{SHOP}/", f"{SHOP}/about/"]


@COMPAT
def test_the_drop_in_documents_are_on_the_sites_domain(client: Client) -> None:
    assert locations(client, "/compat/sitemap.xml")[0] == f"{SHOP}/compat/sitemap-articles.xml"
    assert locations(client, "/compat/sitemap-articles.xml") == [f"{SHOP}/articles/a/"]
    assert all(loc.startswith(f"{SHOP}/") for loc in locations(client, "/compat/all.xml"))


@pytest.mark.parametrize(
    "url",
    [
        *DOCUMENTS,
        pytest.param(COMPAT_DOCUMENTS[0], marks=COMPAT),
        pytest.param(COMPAT_DOCUMENTS[1], marks=COMPAT),
    ],
)
def test_the_host_header_changes_nothing(client: Client, url: str) -> None:
    # www.example.com is in ALLOWED_HOSTS: Django accepts the request, and
    # contrib's views would build on it through RequestSite; here it is not read.
    first = fetch(client, url)
    second = fetch(client, url, Host="www.example.com")
    assert first[0] == second[0] == 200
    assert first[1] == second[1]
    assert first[2]["ETag"] == second[2]["ETag"]
    assert b"www.example.com" not in second[1]


@pytest.mark.parametrize(
    "url", [*DOCUMENTS, *(pytest.param(url, marks=COMPAT) for url in COMPAT_DOCUMENTS)]
)
def test_a_new_domain_is_used_by_the_next_response(client: Client, url: str) -> None:
    before = fetch(client, url)
    set_domain("news.example.org")
    after = fetch(client, url)
    assert SHOP.encode() in before[1]
    assert SHOP.encode() not in after[1]
    assert after[1] == before[1].replace(SHOP.encode(), b"https://news.example.org")
    # A drop-in page with an entry without lastmod has no validator at all.
    if "ETag" not in before[2]:
        assert (url, "ETag" in after[2]) == ("/compat/all.xml", False)
        return
    # Another document, another validator: a crawler's If-None-Match is not a 304.
    assert after[2]["ETag"] != before[2]["ETag"]
    # Read whole (fetch): a page left unread keeps its PostgreSQL cursor open.
    assert fetch(client, url, **{"If-None-Match": before[2]["ETag"]})[0] == 200


def test_build_sitemaps_uses_it(tmp_path: Path) -> None:
    call_command("build_sitemaps", output=str(tmp_path), verbosity=0)
    assert [loc for loc, _ in parse_index((tmp_path / "sitemap.xml").read_bytes())] == [
        f"{SHOP}/sitemap-articles-1.xml",
        f"{SHOP}/sitemap-pages-1.xml",
    ]
    urls = parse_urlset((tmp_path / "sitemap-articles-1.xml").read_bytes())
    assert [url.loc for url in urls] == [f"{SHOP}/articles/a/"]


def test_robots_txt_names_the_index_on_it(client: Client) -> None:
    response = client.get("/robots.txt", headers={"host": "www.example.com"})
    assert response.content.endswith(f"\nSitemap: {SHOP}/sitemap.xml\n".encode())


@pytest.mark.urls("testapp.urls_contrib_redirects")
def test_contribs_page_urls_redirect_on_it(client: Client) -> None:
    response = client.get("/sitemap-articles.xml?p=2", headers={"host": "www.example.com"})
    assert (response.status_code, response["Location"]) == (301, f"{SHOP}/sitemap-articles-2.xml")


# -- a Site that cannot give the base URL ------------------------------------------------

BAD_DOMAIN = (
    "SITEMAPKIT_BASE_URL is not set, and the domain of the current Site (pk=1), "
    "'shop.example.org/blog', carries a path: the sitemap cannot be built on https:// and "
    "that domain. Set the domain of Site 1 to the host the site is served on, alone or with "
    "its port, such as 'www.example.com' or 'www.example.com:8443' (a non-ASCII host in its "
    "xn-- form), or set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, "
    "such as 'https://www.example.com'."
)


def logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "django_sitemapkit"]


@pytest.mark.parametrize(
    ("url", "document"),
    [
        ("/sitemap.xml", "The sitemap index"),
        ("/sitemap.xml.gz", "The sitemap index"),
        ("/sitemap-articles-1.xml", "Page 1 of sitemap source 'articles'"),
        pytest.param("/compat/sitemap.xml", "The sitemap index", marks=COMPAT),
        pytest.param(
            "/compat/sitemap-articles.xml?p=1",
            "Page 1 of sitemap section 'articles'",
            marks=COMPAT,
        ),
    ],
)
def test_a_domain_that_is_no_host_is_a_503_with_the_reason_logged(
    client: Client, caplog: pytest.LogCaptureFixture, url: str, document: str
) -> None:
    set_domain("shop.example.org/blog")
    response = client.get(url)
    assert response.status_code == 503
    assert response["Retry-After"] == "120"
    assert response.content == b"The sitemap is unavailable; try again later.\n"
    [record] = logged(caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is None  # the message says it all: no traceback
    assert record.getMessage() == (
        f"{document} cannot be written: {BAD_DOMAIN} It is answered with 503 and Retry-After."
    )
    # Mended in the admin, without a restart: the next request is served.
    set_domain("shop.example.org")
    assert fetch(client, url)[0] == 200


@override_settings(ROOT_URLCONF="testapp.urls_html")
def test_the_html_sitemap_is_a_503_too(client: Client) -> None:
    set_domain("shop.example.org/blog")
    assert client.get("/sitemap.html").status_code == 503


@override_settings(SITE_ID=7)
def test_no_site_with_site_id_is_a_503(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    response = client.get("/sitemap-articles-1.xml")
    assert response.status_code == 503
    [record] = logged(caplog)
    assert record.getMessage() == (
        "Page 1 of sitemap source 'articles' cannot be written: SITEMAPKIT_BASE_URL is not "
        "set, and no Site has the pk SITE_ID = 7 (django.contrib.sites): the sitemap has no "
        "host to be built on. Create the Site 7 with the domain the site is served on, set "
        "SITE_ID to the pk of an existing Site, or set SITEMAPKIT_BASE_URL to the scheme and "
        "host the site is served on, such as 'https://www.example.com'. It is answered with "
        "503 and Retry-After."
    )


def test_robots_txt_leaves_the_sitemap_out(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    # Its rules are still served: a failing robots.txt stops crawling of the whole site.
    set_domain("shop.example.org/blog")
    response = client.get("/robots.txt")
    assert (response.status_code, response.content) == (200, b"User-agent: *\nDisallow:\n")
    assert [record.getMessage() for record in logged(caplog)] == [
        f"robots.txt names no sitemap: {BAD_DOMAIN}"
    ]


@pytest.mark.urls("testapp.urls_contrib_redirects")
def test_a_contrib_redirect_is_a_503(client: Client) -> None:
    set_domain("shop.example.org/blog")
    assert client.get("/sitemap-articles.xml").status_code == 503


@pytest.mark.parametrize("dry_run", [False, True])
def test_build_sitemaps_stops_in_one_line(tmp_path: Path, dry_run: bool) -> None:
    set_domain("shop.example.org/blog")
    with pytest.raises(CommandError) as info:
        call_command("build_sitemaps", output=str(tmp_path), dry_run=dry_run, verbosity=0)
    assert str(info.value) == BAD_DOMAIN
    assert list(tmp_path.iterdir()) == []
