"""django_sitemapkit.contrib_redirects: contrib's page URLs, redirected for good."""

from __future__ import annotations

import pytest
from django.http import Http404
from django.test import Client, RequestFactory, override_settings
from factories import ArticleFactory
from sitemap_xml import fetch, streamed

from django_sitemapkit.contrib_redirects import contrib_page

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_contrib_redirects")]


@pytest.mark.parametrize(
    ("query", "page"), [("", 1), ("?p=1", 1), ("?p=3", 3), ("?p=123456789", 123456789)]
)
def test_a_contrib_page_url_is_a_permanent_redirect_to_the_same_page_here(
    client: Client, query: str, page: int
) -> None:
    response = client.get(f"/sitemap-articles.xml{query}")
    assert response.status_code == 301
    assert response["Location"] == f"https://www.example.com/sitemap-articles-{page}.xml"


def test_the_redirect_is_built_on_the_base_url_never_on_the_host_header(client: Client) -> None:
    response = client.get("/sitemap-pages.xml?p=2", headers={"host": "www.example.com"})
    assert response["Location"] == "https://www.example.com/sitemap-pages-2.xml"


@override_settings(SITEMAPKIT_BASE_URL="http://localhost:8000", FORCE_SCRIPT_NAME="/blog")
def test_the_redirect_follows_the_base_url_and_the_script_prefix(client: Client) -> None:
    response = client.get("/sitemap-articles.xml?p=2")
    assert response["Location"] == "http://localhost:8000/blog/sitemap-articles-2.xml"


def test_the_redirect_leads_to_the_page(client: Client) -> None:
    ArticleFactory.create_batch(2)
    response = client.get("/sitemap-articles.xml", follow=True)
    assert response.redirect_chain == [("https://www.example.com/sitemap-articles-1.xml", 301)]
    assert response.status_code == 200
    assert streamed(response).count(b"<url>") == 2


@pytest.mark.parametrize(
    ("section", "query", "message"),
    [
        ("nosuch", "", "No sitemap section 'nosuch' is registered."),
        ("articles", "?p=0", "No page '0' of sitemap section 'articles'."),
        ("articles", "?p=02", "No page '02' of sitemap section 'articles'."),
        ("articles", "?p=two", "No page 'two' of sitemap section 'articles'."),
        ("articles", "?p=", "No page '' of sitemap section 'articles'."),
        ("articles", "?p=1234567890", "No page '1234567890' of sitemap section 'articles'."),
    ],
)
def test_what_contrib_would_not_have_served_is_a_404(
    client: Client, section: str, query: str, message: str
) -> None:
    assert client.get(f"/sitemap-{section}.xml{query}").status_code == 404
    request = RequestFactory().get(f"/sitemap-{section}.xml{query}")
    with pytest.raises(Http404) as raised:
        contrib_page(request, section)
    assert str(raised.value) == message


def test_this_app_s_own_page_urls_are_not_taken_for_contrib_sections(client: Client) -> None:
    # "sitemap-articles-2.xml" would also match contrib's pattern, as a section
    # named "articles-2": this app's URLconf, included first, answers it.
    ArticleFactory.create_batch(2)
    # fetch() reads the whole streamed body: left unread, the page would keep
    # its server-side cursor (PostgreSQL) open past the test.
    assert fetch(client, "/sitemap-articles-1.xml")[0] == 200
    assert fetch(client, "/sitemap-articles-2.xml")[0] == 404


def test_head_is_redirected_and_post_refused(client: Client) -> None:
    assert client.head("/sitemap-articles.xml").status_code == 301
    assert client.post("/sitemap-articles.xml").status_code == 405
