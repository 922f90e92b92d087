"""django CMS's ``CMSSitemap`` through the drop-in views, ``compat.register()`` and
``build_sitemaps``: the same URLs and lastmods as contrib's views with that class,
as django CMS documents it (thirdparty/urls.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cms.api import create_page
from cms.models import PageContent
from django.test import Client

from thirdparty.compat_side_by_side import (
    WWW,
    Urls,
    app_urls,
    at,
    build,
    built_urls,
    compared,
    compared_index,
    on_www,
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
    urls, _ = compared(client, "cms")
    assert urls == {
        f"{WWW}/cms/home/": "2024-03-01",
        **{f"{WWW}/cms/home/page-{n}/": at(n).date().isoformat() for n in range(1, PAGES)},
    }
    return urls


def test_the_drop_in_lists_what_contribs_view_lists(client: Client, own: Urls) -> None:
    assert compared(client, "cms") == (own, own)


def test_the_drop_in_index_lists_contribs_pages_and_lastmods(client: Client, own: Urls) -> None:
    compared_index(client, "cms")


def test_a_registered_section_lists_them(client: Client, own: Urls) -> None:
    with registered(COMPAT_SITEMAPS["cms"]):
        assert app_urls(client) == own


def test_the_build_writes_them(own: Urls, tmp_path: Path) -> None:
    with registered(COMPAT_SITEMAPS["cms"]):
        build(tmp_path)
    assert built_urls(tmp_path) == own
