"""The third-party project's URLs as a Wagtail site with i18n serves them: Wagtail's
pages under ``i18n_patterns`` (French ones below ``/fr/``, English at the root), so
that each locale's tree has URLs of its own; with the app's views and Wagtail's own
sitemap beside them. For the native Wagtail source's tests (test_wagtail_*.py)."""

from __future__ import annotations

from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.contrib.sitemaps.views import sitemap as wagtail_sitemap

urlpatterns = [
    path("wagtail-sitemap.xml", wagtail_sitemap),
    path("", include("django_sitemapkit.urls")),
    *i18n_patterns(path("", include(wagtail_urls)), prefix_default_language=False),
]
