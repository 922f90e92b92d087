"""contrib's sitemap views and django_sitemapkit.compat's over ``i18n`` classes, with
the pages they list under ``i18n_patterns``."""

from __future__ import annotations

from django.conf.urls.i18n import i18n_patterns
from django.contrib.sitemaps import views as contrib
from django.urls import path

from django_sitemapkit.compat import index, sitemap
from testapp.contrib_i18n import SITEMAPS
from testapp.urls import page

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
    path("compat/sitemap.xml", index, {"sitemaps": SITEMAPS, "sitemap_url_name": "compat-section"}),
    path(
        "compat/sitemap-<section>.xml",
        sitemap,
        {"sitemaps": SITEMAPS},
        name="compat-section",
    ),
    *i18n_patterns(
        path("articles/<str:slug>/", page, name="article-detail"),
        path("about/", page, name="about"),
        path("", page, name="home"),
    ),
]
