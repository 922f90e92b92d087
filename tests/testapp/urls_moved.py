"""The test URLconf with the articles moved: a worker that runs it writes other URLs."""

from __future__ import annotations

from django.urls import include, path

from testapp.urls import page

urlpatterns = [
    path("", page, name="home"),
    path("about/", page, name="about"),
    path("posts/<str:slug>/", page, name="article-detail"),
    path("", include("django_sitemapkit.urls")),
]
