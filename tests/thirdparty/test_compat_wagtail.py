"""Wagtail's ``Sitemap`` through the drop-in views, ``compat.register()`` and
``build_sitemaps``, on one site and on two sites of two hosts: the same URLs and
lastmods as Wagtail's own views (thirdparty/urls.py). The class takes the
request; the drop-in gives it the one it answers, or one built on the site's
base URL, so each Wagtail site gets its own pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from wagtail.models import Page, Site

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
    on_www,
    queries,
    registered,
)
from thirdparty.pages.models import ArticlePage
from thirdparty.urls import COMPAT_SITEMAPS

pytestmark = pytest.mark.django_db


def wagtail_site(hostname: str, slug: str, pages: int, *, default: bool) -> list[str]:
    """A Wagtail site on ``hostname`` (HTTPS): a root page and ``pages`` children, each
    published on its own day; their paths."""
    root = Page.objects.get(depth=1).add_child(instance=ArticlePage(title=slug, slug=slug))
    Site.objects.create(hostname=hostname, port=443, root_page=root, is_default_site=default)
    children = [
        root.add_child(instance=ArticlePage(title=f"{slug} {n}", slug=f"{slug}-{n}"))
        for n in range(pages)
    ]
    for day, page in enumerate([root, *children]):
        Page.objects.filter(pk=page.pk).update(last_published_at=at(day))
    return ["/", *(f"/{slug}-{n}/" for n in range(pages))]


def expected(base_url: str, paths: list[str]) -> Urls:
    return {base_url + path: at(day).date().isoformat() for day, path in enumerate(paths)}


@pytest.fixture
def one_site() -> Urls:
    on_www()
    Site.objects.all().delete()
    return expected(WWW, wagtail_site("www.example.com", "start", 20, default=True))


@pytest.fixture
def two_sites(settings: object) -> tuple[Urls, Urls]:
    """The default site on www, a smaller one on blog, both hosts sites of this app."""
    on_www()
    Site.objects.all().delete()
    www = expected(WWW, wagtail_site("www.example.com", "start", 20, default=True))
    blog = expected(BLOG, wagtail_site("blog.example.com", "blog", 6, default=False))
    settings.SITEMAPKIT_SITES = TWO_SITES  # type: ignore[attr-defined]
    return www, blog


def test_the_drop_in_lists_what_wagtails_view_lists(client: Client, one_site: Urls) -> None:
    assert compared(client, "wagtail") == (one_site, one_site)
    compared_index(client, "wagtail")


def test_each_page_of_ten_holds_wagtails_page(client: Client, one_site: Urls) -> None:
    pages = [compared(client, "pagedwagtail", query=f"?p={n}") for n in (1, 2, 3)]
    assert [len(ours) for _, ours in pages] == [10, 10, 1]
    assert all(ours == theirs for theirs, ours in pages)
    # Wagtail's index gives every page the section's newest lastmod; so does the drop-in.
    compared_index(client, "pagedwagtail")


def test_the_drop_in_runs_no_more_queries_than_wagtails_view(
    client: Client, one_site: Urls
) -> None:
    """The index reads the count and the newest lastmod in one aggregate, where it
    built every page's URLs (44 queries against Wagtail's 15 on 2,000 pages); a page
    reads the Site row contrib keeps for the process's life, and no COUNT."""
    found = {
        url: (queries(client, f"/dropin/{url}"), queries(client, f"/own/{url}"))
        for url in ("pagedwagtail-index.xml", "pagedwagtail.xml?p=2")
    }
    assert found == {"pagedwagtail-index.xml": (3, 6), "pagedwagtail.xml?p=2": (6, 5)}


def test_wagtails_own_lastmod_is_one_aggregate_and_an_overridden_one_is_not(
    one_site: Urls,
) -> None:
    """What Wagtail's own ``lastmod()`` gives, item by item, is what the aggregate
    gives; a subclass with its own ``lastmod()`` is read item by item."""
    from wagtail.contrib.sitemaps import Sitemap

    from django_sitemapkit.compat.known_lastmods import aggregated_lastmods

    class Undated(Sitemap):
        def lastmod(self, obj: Page) -> None:
            return None

    sitemap = Sitemap()
    pages = list(sitemap.items())
    by_item = (len(pages), max(sitemap.lastmod(page) for page in pages))
    assert aggregated_lastmods(sitemap, sitemap.items(), "pages") == by_item
    assert by_item[0] == len(one_site)
    assert aggregated_lastmods(Undated(), Undated().items(), "pages") is None
    assert aggregated_lastmods(sitemap, pages, "pages") is None


def test_a_registered_section_and_the_build_list_them(
    client: Client, one_site: Urls, tmp_path: Path
) -> None:
    with registered(COMPAT_SITEMAPS["wagtail"]):
        assert app_urls(client) == one_site
        build(tmp_path)
    assert built_urls(tmp_path) == one_site


def test_each_host_gets_its_own_wagtail_sites_pages(
    client: Client, two_sites: tuple[Urls, Urls]
) -> None:
    www, blog = two_sites
    assert compared(client, "wagtail", WWW) == (www, www)
    assert compared(client, "wagtail", BLOG) == (blog, blog)
    compared_index(client, "wagtail", BLOG)


def test_each_sites_section_and_build_list_its_own_pages(
    client: Client, two_sites: tuple[Urls, Urls], tmp_path: Path
) -> None:
    www, blog = two_sites
    with registered(COMPAT_SITEMAPS["wagtail"]):
        assert app_urls(client, WWW) == www
        assert app_urls(client, BLOG) == blog
        build(tmp_path)
    assert built_urls(tmp_path / "www") == www
    assert built_urls(tmp_path / "blog") == blog
