"""The URLs of the benchmark's Wagtail children: the example project's, Wagtail's own
sitemap view (``/wagtail-sitemap.xml``, as its docs show it), and Wagtail's pages
at the root, last."""

from __future__ import annotations

from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.contrib.sitemaps.views import sitemap as wagtail_sitemap

from mysite.urls import urlpatterns as example_urlpatterns

urlpatterns = [
    *example_urlpatterns,
    path("wagtail-sitemap.xml", wagtail_sitemap),
    path("", include(wagtail_urls)),
]
