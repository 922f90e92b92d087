"""contrib's sitemap views and django_sitemapkit.compat's, side by side over one dict."""

from __future__ import annotations

from django.contrib.sitemaps import views as contrib
from django.urls import include, path

from django_sitemapkit.compat import index, sitemap
from testapp.contrib_sitemaps import DIFFERENT, MANY, SITEMAPS

urlpatterns = [
    path(
        "contrib/sitemap.xml",
        contrib.index,
        {"sitemaps": SITEMAPS, "sitemap_url_name": "contrib-section"},
    ),
    path(
        "contrib/sitemap-<section>.xml",
        contrib.sitemap,
        {"sitemaps": SITEMAPS},
        name="contrib-section",
    ),
    path("contrib/all.xml", contrib.sitemap, {"sitemaps": SITEMAPS}),
    path(
        "compat/sitemap.xml",
        index,
        {"sitemaps": SITEMAPS, "sitemap_url_name": "compat-section"},
    ),
    path(
        "compat/sitemap-<section>.xml",
        sitemap,
        {"sitemaps": SITEMAPS},
        name="compat-section",
    ),
    path("compat/all.xml", sitemap, {"sitemaps": SITEMAPS}),
    path(
        "compat/other-<section>.xml",
        sitemap,
        {"sitemaps": DIFFERENT, "content_type": "text/xml; charset=utf-8"},
        name="compat-other",
    ),
    path(
        "compat/other.xml",
        index,
        {"sitemaps": DIFFERENT, "sitemap_url_name": "compat-other"},
    ),
    path("compat/many-<section>.xml", sitemap, {"sitemaps": MANY}, name="compat-many"),
    path("compat/many.xml", index, {"sitemaps": MANY, "sitemap_url_name": "compat-many"}),
    path("", include("testapp.urls")),
]
