"""SITEMAPKIT_SITES = "wagtail" (sites/wagtail.py): each Wagtail Site a site of its own,
and the Wagtail Site whose pages a WagtailSource lists on any site."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from commands import outcome
from django.test import override_settings
from sitemap_xml import parse_extended_urlset
from wagtail.models import Site

from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.hosts import all_sites
from django_sitemapkit.sites.wagtail import wagtail_site_of
from django_sitemapkit.wagtail import WagtailSource
from thirdparty import wagtail_tree
from thirdparty.wagtail_reading import get, listed, serving

pytestmark = pytest.mark.django_db


HOSTS = ("www.example.com", "blog.example.com")


class Pages(WagtailSource):
    name = "pages"


def on(url: str) -> SitemapSite:
    return SitemapSite("default", Origin.from_url(url))


def test_each_wagtail_site_is_a_site_on_its_root_url() -> None:
    project = wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    wagtail_tree.site("dev.example.com", project.sections[0], port=8000)
    with override_settings(SITEMAPKIT_SITES="wagtail"):
        sites = [(site.name, site.base_url) for site in all_sites()]
    assert sites == [
        ("www.example.com", "https://www.example.com"),
        ("blog.example.com", "https://blog.example.com"),
        ("dev.example.com:8000", "http://dev.example.com:8000"),
    ]


def test_each_host_is_served_its_own_pages() -> None:
    wagtail_tree.project(sections=2, per_section=2, translated=0, blog_pages=3)
    with serving(Pages):
        blog = [url.loc for url in listed("blog.example.com")]
        www = [url.loc for url in listed("www.example.com")]
        index = get("blog.example.com", "/sitemap.xml")
    assert blog == ["https://blog.example.com/"] + [
        f"https://blog.example.com/post-{n}/" for n in range(3)
    ]
    assert all(loc.startswith("https://www.example.com/") for loc in www)
    assert len(www) == 1 + 2 + 4 + 1
    assert index["Vary"] == "Host"


def test_a_host_no_wagtail_site_has_gets_a_404(caplog: pytest.LogCaptureFixture) -> None:
    wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    with serving(Pages), caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        response = get("testserver", "/sitemap.xml")
    assert response.status_code == 404
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == [
        "No Wagtail Site has the host 'testserver', so /sitemap.xml serves no sitemap on it. "
        "Add a Wagtail Site with that hostname if it should have one."
    ]


def test_one_site_lists_the_wagtail_site_of_its_host_else_the_default() -> None:
    project = wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    blog = Site.objects.get(pk=project.blog.pk)
    assert wagtail_site_of(on("https://blog.example.com")) == blog
    # Wagtail's own choice: the only Site of the host, whatever its port.
    assert wagtail_site_of(on("https://blog.example.com:8443")) == blog
    assert wagtail_site_of(on("https://other.example.com")) == project.www
    Site.objects.filter(pk=project.www.pk).update(is_default_site=False)
    assert wagtail_site_of(on("https://other.example.com")) is None


def test_a_site_without_a_wagtail_site_lists_no_page() -> None:
    project = wagtail_tree.project(sections=1, per_section=1, translated=0, blog_pages=1)
    Site.objects.filter(pk=project.www.pk).update(is_default_site=False)
    with serving(
        Pages,
        SITEMAPKIT_SITES=None,
        SITEMAPKIT_BASE_URL="https://other.example.com",
        ALLOWED_HOSTS=["other.example.com"],
    ):
        response = get("other.example.com", "/sitemap-pages-1.xml")
    assert response.status_code == 404


def test_build_sitemaps_writes_each_wagtail_sites_own_pages(tmp_path: Path) -> None:
    wagtail_tree.project(sections=2, per_section=300, translated=1, blog_pages=3)
    with serving(Pages, SITEMAPKIT_OUTPUT_DIR=tmp_path):
        served = {host: [url.loc for url in listed(host)] for host in HOSTS}
        _, errors, status = outcome("build_sitemaps")
    assert (errors, status) == ("", 0)
    for host in HOSTS:
        built = sorted((tmp_path / host).glob("sitemap-pages-*.xml"))
        urls = [url.loc for path in built for url in parse_extended_urlset(path.read_bytes())]
        assert urls == served[host]
    assert len(served["www.example.com"]) == 1 + 2 + 600 + 1 + 1 + 300
