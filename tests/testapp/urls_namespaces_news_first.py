"""``urls_namespaces_blog_first`` included in the other order."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("news/", include("testapp.urls_news", namespace="blog")),
    path("weblog/", include("testapp.urls_blog", namespace="weblog")),
]
