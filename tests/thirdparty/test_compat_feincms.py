"""FeinCMS's ``PageSitemap`` through the drop-in views, ``compat.register()`` and
``build_sitemaps``: the same URLs and lastmods as contrib's views with that class,
as FeinCMS documents it (thirdparty/urls.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from feincms.module.page.models import Page

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


@pytest.fixture
def own(client: Client) -> Urls:
    """Active pages two levels deep, an inactive one and a redirect (which
    ``PageSitemap`` leaves out), each modified on its own day."""
    on_www()
    made = []
    for top in range(4):
        parent = Page.objects.create(
            title=f"Top {top}", slug=f"top-{top}", active=True, template_key="page.html"
        )
        made.append(parent)
        made += [
            Page.objects.create(
                title=f"Child {n}",
                slug=f"child-{n}",
                active=True,
                template_key="page.html",
                parent=parent,
            )
            for n in range(4)
        ]
    Page.objects.create(title="Hidden", slug="hidden", active=False, template_key="page.html")
    Page.objects.create(
        title="Moved", slug="moved", active=True, template_key="page.html", redirect_to="/top-0/"
    )
    for day, page in enumerate(made):
        Page.objects.filter(pk=page.pk).update(modification_date=at(day))
    urls, _ = compared(client, "feincms")
    assert urls == {
        f"{WWW}/fein/{page._cached_url.strip('/')}/": at(day).date().isoformat()
        for day, page in enumerate(made)
    }
    return urls


def test_the_drop_in_lists_what_contribs_view_lists(client: Client, own: Urls) -> None:
    assert compared(client, "feincms") == (own, own)
    compared_index(client, "feincms")


def test_a_registered_section_and_the_build_list_them(
    client: Client, own: Urls, tmp_path: Path
) -> None:
    with registered(COMPAT_SITEMAPS["feincms"]):
        assert app_urls(client) == own
        build(tmp_path)
    assert built_urls(tmp_path) == own
