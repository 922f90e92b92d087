"""URLs of the third-party project: each package's own sitemap view, as its docs
show it, next to its pages (Wagtail's pages at the root, last)."""

from __future__ import annotations

from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.contrib.sitemaps.views import sitemap as wagtail_sitemap

urlpatterns = [
    path("wagtail-sitemap.xml", wagtail_sitemap),
    # The app's own views, for the native Wagtail source (test_wagtail_*.py).
    path("", include("django_sitemapkit.urls")),
    path("", include(wagtail_urls)),
]
