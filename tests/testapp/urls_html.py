"""The test URLs plus the opt-in HTML sitemap."""

from __future__ import annotations

from django.urls import include, path

from testapp.urls import urlpatterns as base_urlpatterns

urlpatterns = [*base_urlpatterns, path("", include("django_sitemapkit.html_urls"))]
