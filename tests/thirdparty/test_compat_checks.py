"""The system checks of the third-party classes the drop-in serves
(``checks/compat_classes.py``): django CMS's ``CMSSitemap`` without ``SITE_ID``
(E100) and a Wagtail ``Site`` off the base URL (W046), as functions and through
``manage.py check``."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from wagtail.models import Page, Site

from django_sitemapkit.checks.compat_classes import (
    check_dropin_cms_site_id,
    check_dropin_wagtail_sites,
)
from thirdparty.compat_side_by_side import on_www, registered
from thirdparty.pages.models import ArticlePage
from thirdparty.urls import COMPAT_SITEMAPS

CMS_FIX = (
    "Set SITE_ID to the pk of the Site row of the site django CMS serves, such as SITE_ID = 1."
)


def cms_error(where: str) -> Error:
    return Error(
        f"django CMS's CMSSitemap ({where}) counts its pages on the current Site, which "
        "SITE_ID names, and SITE_ID is None: the sitemap index and build_sitemaps fail on "
        "it (contrib's index too).",
        hint=CMS_FIX,
        id="sitemapkit.E100",
    )


def test_cms_sitemap_without_site_id_is_an_error(settings: Any) -> None:
    settings.SITE_ID = None
    found = check_dropin_cms_site_id()
    # Three URL patterns of each of the two dicts holding CMSSitemap, and the four of
    # djangocms-page-sitemap's subclass of it (thirdparty/urls.py: with cache_page).
    assert len(found) == 10
    assert found[-1] == cms_error(
        "sitemaps['pages'] of the URL pattern 'dropin-cached/pagesitemap.xml'"
    )
    assert found[0] == cms_error("sitemaps['pages'] of the URL pattern 'dropin/cms.xml'")
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E100"):
        call_command("check")


def test_a_registered_cms_section_without_site_id_is_named(settings: Any) -> None:
    settings.SITE_ID = None
    with registered(COMPAT_SITEMAPS["cms"]):
        found = check_dropin_cms_site_id()
    assert found[-1] == cms_error("the section 'pages' of compat.register()")


def test_cms_sitemap_with_site_id_is_fine() -> None:
    assert check_dropin_cms_site_id() == []


def wagtail_root(hostname: str, port: int) -> None:
    root = Page.objects.get(depth=1).add_child(instance=ArticlePage(title="Start", slug="start"))
    root.add_child(instance=ArticlePage(title="About", slug="about"))
    Site.objects.all().delete()
    Site.objects.create(hostname=hostname, port=port, root_page=root, is_default_site=True)


def wagtail_warning(root_url: str, hint: str) -> Warning:
    pk = Site.objects.get().pk
    return Warning(
        "Wagtail's Sitemap (sitemaps['pages'] of the URL pattern 'dropin/wagtail.xml') is "
        f"read on the site 'default' from the Wagtail Site {pk!r}, whose root URL "
        f"{root_url!r} is not the site's base URL 'https://www.example.com': every URL "
        "of its pages is skipped, and each page of the section is a 404.",
        hint=hint.format(pk=pk),
        id="sitemapkit.W046",
    )


@pytest.mark.django_db
def test_a_wagtail_site_on_another_port_is_a_warning(client: Client) -> None:
    on_www()
    wagtail_root("www.example.com", 8000)
    # What the check foretells: the index lists a page that is a 404.
    assert client.get("/dropin/wagtail-index.xml", secure=True).status_code == 200
    assert client.get("/dropin/wagtail.xml", secure=True).status_code == 404
    assert check_dropin_wagtail_sites(databases=["default"]) == [
        wagtail_warning(
            "http://www.example.com:8000",
            "Set the hostname of the Wagtail Site {pk!r} to 'www.example.com' and its port "
            "to 443, or set SITEMAPKIT_BASE_URL to 'http://www.example.com:8000' if its "
            "pages are served there.",
        )
    ]
    stderr = io.StringIO()
    call_command("check", "--database", "default", stderr=stderr)
    assert "sitemapkit.W046" in stderr.getvalue()


@pytest.mark.django_db
def test_wagtails_default_localhost_site_is_a_warning() -> None:
    """A new Wagtail project's only Site is localhost:80, the default one every
    request falls back to."""
    wagtail_root("localhost", 80)
    assert check_dropin_wagtail_sites(databases=["default"]) == [
        wagtail_warning(
            "http://localhost",
            "Set the hostname of the Wagtail Site {pk!r} to 'www.example.com' and its port "
            "to 443, or set SITEMAPKIT_BASE_URL to 'http://localhost' if its pages are "
            "served there.",
        )
    ]


@pytest.mark.django_db
def test_a_wagtail_site_on_the_base_url_is_fine(client: Client) -> None:
    wagtail_root("www.example.com", 443)
    assert check_dropin_wagtail_sites(databases=["default"]) == []
    assert check_dropin_wagtail_sites(databases=None) == []
