"""``urls_verify.py`` with two of its sitemap's pages answered otherwise than the app
answers them: one fails (a 500), one lists no URL (``verify_sitemaps``' requests of
the sitemap documents, ``tests/test_verify_sitemaps.py``)."""

from __future__ import annotations

from django.urls import path

from testapp import views_verify
from testapp.urls_verify import urlpatterns as verify_patterns

urlpatterns = [
    path("sitemap-articles-1.xml", views_verify.failing_sitemap),
    path("sitemap-pages-1.xml", views_verify.empty_sitemap),
    *verify_patterns,
]
