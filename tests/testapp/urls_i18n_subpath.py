"""The sitemap mounted inside ``i18n_patterns``, under each language's /shop/: its
directory, like the sources' URLs, depends on the language it is reversed in."""

from __future__ import annotations

from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path

from testapp.urls import page

urlpatterns = i18n_patterns(
    path("shop/<str:slug>/", page, name="article-detail"),
    path("shop/", include("django_sitemapkit.urls")),
)
