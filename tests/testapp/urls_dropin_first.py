"""Step 1 of docs/migrating.md left in place above Step 2's URLs: the drop-in's
index and ``sitemap-<section>.xml``, then the site's URLconf, which includes
``django_sitemapkit.urls`` (sitemapkit.W062)."""

from __future__ import annotations

from django.urls import include, path

from django_sitemapkit.compat import index, sitemap
from testapp.contrib_sitemaps import SITEMAPS

urlpatterns = [
    path("sitemap.xml", index, {"sitemaps": SITEMAPS}),
    path(
        "sitemap-<section>.xml",
        sitemap,
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("", include("testapp.urls")),
]
