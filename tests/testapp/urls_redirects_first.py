"""``django_sitemapkit.contrib_redirects`` included before ``django_sitemapkit.urls``,
against the docs: its ``sitemap-<section>.xml`` reads ``sitemap-articles-1.xml`` as
the section ``articles-1`` (sitemapkit.W062)."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("", include("django_sitemapkit.contrib_redirects")),
    path("", include("testapp.urls")),
]
