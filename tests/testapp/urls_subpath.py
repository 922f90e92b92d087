"""The sitemap mounted under /shop/: by the location rule it may list only /shop/ URLs."""

from __future__ import annotations

from django.urls import include, path

from testapp.urls import page

urlpatterns = [
    path("shop/<str:slug>/", page, name="article-detail"),
    path("blog/<str:slug>/", page, name="blog-detail"),
    path("shop/", include("django_sitemapkit.urls")),
]
