"""The application namespace ``blog`` (instance ``weblog``), then the instance
namespace ``blog`` of the ``news`` app: ``reverse("blog:post")`` is ``weblog``'s."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("weblog/", include("testapp.urls_blog", namespace="weblog")),
    path("news/", include("testapp.urls_news", namespace="blog")),
]
