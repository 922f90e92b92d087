"""The database checks of Wagtail's sites (checks/sites/wagtail_sites.py), against a real
Wagtail project: W050-W053."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Warning
from django.core.management import call_command
from django.test import override_settings
from wagtail.models import Site

from django_sitemapkit import register, registry
from django_sitemapkit.checks import check_wagtail_sites
from django_sitemapkit.wagtail import WagtailSource
from thirdparty import wagtail_tree

pytestmark = pytest.mark.django_db
DATABASES = ["default"]
WAGTAIL_SITES = override_settings(SITEMAPKIT_SITES="wagtail", SITEMAPKIT_BASE_URL=None)


class Pages(WagtailSource):
    name = "pages"


@WAGTAIL_SITES
def test_w050_no_wagtail_site() -> None:
    wagtail_tree.root()
    assert check_wagtail_sites(databases=DATABASES) == [
        Warning(
            "SITEMAPKIT_SITES = 'wagtail', but there is no Wagtail Site: no sitemap is served.",
            hint="Add a Site in Wagtail's settings, or list the sites in SITEMAPKIT_SITES.",
            id="sitemapkit.W050",
        )
    ]
    out = StringIO()
    call_command("check", "--database", "default", stdout=out, stderr=out)
    assert "sitemapkit.W050" in out.getvalue()


@WAGTAIL_SITES
def test_w051_a_wagtail_site_that_cannot_be_a_site() -> None:
    project = wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    Site.objects.filter(pk=project.blog.pk).update(hostname="blog example.com")
    assert check_wagtail_sites(databases=DATABASES) == [
        Warning(
            f"Wagtail Site {project.blog.pk!r} (hostname 'blog example.com', SITEMAPKIT_SITES "
            "= 'wagtail') would be served on 'https://blog example.com', which contains "
            "whitespace.",
            hint=f"Set the hostname of Wagtail Site {project.blog.pk!r} to the host it is "
            "served on, such as 'www.example.com', and its port to 443 for https.",
            id="sitemapkit.W051",
        )
    ]


@WAGTAIL_SITES
def test_w052_a_wagtail_site_whose_host_allowed_hosts_refuses() -> None:
    wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    with override_settings(ALLOWED_HOSTS=["www.example.com"]):
        assert check_wagtail_sites(databases=DATABASES) == [
            Warning(
                "The host of Wagtail Site 'blog.example.com', 'blog.example.com', is not "
                "accepted by ALLOWED_HOSTS ['www.example.com'] (SITEMAPKIT_SITES = "
                "'wagtail'): requests for its sitemaps are answered with 400.",
                hint="Add 'blog.example.com' to ALLOWED_HOSTS, or delete the Wagtail Site if "
                "it is not served here.",
                id="sitemapkit.W052",
            )
        ]


@override_settings(SITEMAPKIT_BASE_URL="https://other.example.com")
def test_w053_a_site_no_wagtail_site_serves() -> None:
    project = wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    register(Pages)
    try:
        assert check_wagtail_sites(databases=DATABASES) == []
        Site.objects.filter(pk=project.www.pk).update(is_default_site=False)
        assert check_wagtail_sites(databases=DATABASES) == [
            Warning(
                "Sitemap source thirdparty.test_wagtail_checks.Pages lists no page on site "
                "'default' (https://other.example.com): no Wagtail Site has the host "
                "'other.example.com', and none is the default.",
                hint="Add a Wagtail Site with the hostname 'other.example.com', or make one "
                "the default site.",
                obj=Pages,
                id="sitemapkit.W053",
            )
        ]
    finally:
        registry.unregister(Pages)


@WAGTAIL_SITES
def test_a_wagtail_source_passes_every_check_of_a_source() -> None:
    wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    register(Pages)
    try:
        out = StringIO()
        call_command("check", "--database", "default", stdout=out, stderr=out)
    finally:
        registry.unregister(Pages)
    assert "sitemapkit" not in out.getvalue()
