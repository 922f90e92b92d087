"""This app's URLs, the HTML sitemap and robots.txt, next to contrib's views over the
same dict (for tests/test_compat_register.py)."""

from __future__ import annotations

from django.contrib.sitemaps import views as contrib
from django.urls import include, path

from django_sitemapkit.robots import robots_txt
from testapp.contrib_sitemaps import SITEMAPS

urlpatterns = [
    path(
        "contrib/sitemap-<section>.xml",
        contrib.sitemap,
        {"sitemaps": SITEMAPS},
        name="contrib-section",
    ),
    path("robots.txt", robots_txt),
    path("", include("django_sitemapkit.urls")),
    path("", include("django_sitemapkit.html_urls")),
    path("", include("testapp.urls")),
]
