"""django CMS's ``CMSSitemap`` through the drop-in views, ``compat.register()`` and
``build_sitemaps``: the same URLs and lastmods as contrib's views with that class,
as django CMS documents it (thirdparty/urls.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cms.api import create_page
from cms.models import PageContent
from django.contrib.sites.models import Site
from django.test import Client

from thirdparty.compat_side_by_side import (
    BLOG,
    TWO_SITES,
    WWW,
    Urls,
    app_urls,
    at,
    build,
    built_urls,
    compared,
    compared_index,
    dropin_urls,
    get,
    on_www,
    own_urls,
    queries,
    registered,
)
from thirdparty.urls import COMPAT_SITEMAPS

pytestmark = pytest.mark.django_db
PAGES = 24


@pytest.fixture
def own(client: Client) -> Urls:
    """A home page and its children, each content changed on its own day; the URLs
    and days contrib's view lists."""
    on_www()
    home = create_page("Home", "page.html", "en")
    for number in range(1, PAGES):
        create_page(f"Page {number}", "page.html", "en", parent=home)
    for day, content in enumerate(PageContent.objects.order_by("pk")):
        PageContent.objects.filter(pk=content.pk).update(changed_date=at(day))
    urls = own_urls(get(client, "/own/cms.xml"))
    assert urls == {
        f"{WWW}/cms/home/": "2024-03-01",
        **{f"{WWW}/cms/home/page-{n}/": at(n).date().isoformat() for n in range(1, PAGES)},
    }
    return urls


def test_the_drop_in_lists_what_contribs_view_lists(client: Client, own: Urls) -> None:
    assert compared(client, "cms") == (own, own)


def test_the_drop_in_index_lists_contribs_pages_and_lastmods(client: Client, own: Urls) -> None:
    compared_index(client, "cms")


def test_each_page_of_ten_holds_contribs_page(client: Client, own: Urls) -> None:
    pages = [compared(client, "pagedcms", query=f"?p={n}") for n in (1, 2, 3)]
    assert [len(ours) for _, ours in pages] == [10, 10, 4]
    assert all(ours == theirs for theirs, ours in pages)
    assert client.get("/dropin/pagedcms.xml?p=4", secure=True).status_code == 404
    # contrib's index gives every page the section's newest lastmod; so does the drop-in.
    compared_index(client, "pagedcms")


def test_the_drop_in_runs_no_more_queries_than_contribs_view(client: Client, own: Urls) -> None:
    """The index counts the items in the pass that reads their lastmods; a page reads
    the Site row contrib keeps for the process's life (sites/framework.py says why
    the app never does) and nothing else more."""
    assert (
        queries(client, "/dropin/pagedcms-index.xml"),
        queries(client, "/own/pagedcms-index.xml"),
    ) == (1, 2)
    assert (
        queries(client, "/dropin/pagedcms.xml?p=2"),
        queries(client, "/own/pagedcms.xml?p=2"),
    ) == (3, 2)


def test_a_registered_section_lists_them(client: Client, own: Urls) -> None:
    with registered(COMPAT_SITEMAPS["cms"]):
        assert app_urls(client) == own


def test_the_build_writes_them(own: Urls, tmp_path: Path) -> None:
    with registered(COMPAT_SITEMAPS["cms"]):
        build(tmp_path)
    assert built_urls(tmp_path) == own


def test_each_host_lists_the_pages_of_its_own_site_row(client: Client, settings: Any) -> None:
    """With two sites, the drop-in gives CMSSitemap the Site row of the host it serves;
    contrib gives SITE_ID's whatever the host (compat/served.py)."""
    on_www()
    blog = Site.objects.create(domain="blog.example.com", name="blog")
    create_page("Home", "page.html", "en")
    create_page("Blog", "page.html", "en", site=blog)
    settings.SITEMAPKIT_SITES = TWO_SITES
    assert list(dropin_urls(get(client, "/dropin/cms.xml", BLOG))) == [f"{BLOG}/cms/blog/"]
    assert list(dropin_urls(get(client, "/dropin/cms.xml", WWW))) == [f"{WWW}/cms/home/"]
    assert list(own_urls(get(client, "/own/cms.xml", BLOG))) == [f"{WWW}/cms/home/"]
