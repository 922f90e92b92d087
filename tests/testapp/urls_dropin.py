"""Step 1 of docs/migrating.md as it stands: the sitemap served by the drop-in views
alone, ``django_sitemapkit.urls`` not included (no sitemapkit.W002 or W006)."""

from __future__ import annotations

from django.urls import path
from django.views.decorators.cache import cache_page

from django_sitemapkit.compat import index, sitemap
from testapp.contrib_sitemaps import SITEMAPS
from testapp.urls import page

urlpatterns = [
    path("", page, name="home"),
    path("about/", page, name="about"),
    path("articles/<str:slug>/", page, name="article-detail"),
    path("by-id/<int:pk>/", page, name="article-by-pk"),
    # Decorated, as Django's documentation wraps it: still the drop-in.
    path("sitemap.xml", cache_page(86400)(index), {"sitemaps": SITEMAPS}),
    path(
        "sitemap-<section>.xml",
        sitemap,
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
]
