"""``include("django_sitemapkit.urls")`` serves the index and every page, as
``.xml`` and as ``.xml.gz``."""

from __future__ import annotations

from django.urls import path, register_converter

from django_sitemapkit import views
from django_sitemapkit.names import SECTION_PATTERN


class SectionConverter:
    # The section names the system checks allow (sitemapkit.E007).
    regex = SECTION_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class PageConverter:
    # ASCII digits without a leading zero, at most nine of them: a 20-digit
    # page must never reach the database as an overflowing OFFSET.
    regex = "[1-9][0-9]{0,8}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(SectionConverter, "sitemapkit_section")
register_converter(PageConverter, "sitemapkit_page")

app_name = "sitemapkit"
urlpatterns = [
    path("sitemap.xml", views.index, name="index"),
    path("sitemap.xml.gz", views.index_gz, name="index_gz"),
    path(
        "sitemap-<sitemapkit_section:section>-<sitemapkit_page:page>.xml",
        views.page,
        name="page",
    ),
    path(
        "sitemap-<sitemapkit_section:section>-<sitemapkit_page:page>.xml.gz",
        views.page_gz,
        name="page_gz",
    ),
]
