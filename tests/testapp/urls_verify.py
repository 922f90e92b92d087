"""The articles' pages of ``testapp/views_verify.py``, a login page, the static pages and
the sitemaps: what ``verify_sitemaps`` requests in its tests."""

from __future__ import annotations

from django.urls import include, path

from testapp import views_verify
from testapp.urls import page

urlpatterns = [
    path("", page, name="home"),
    path("about/", page, name="about"),
    path("articles/<str:slug>/", views_verify.article, name="article-detail"),
    path("accounts/login/", views_verify.login, name="login"),
    path("echo/", views_verify.echo),
    path("robots.txt", views_verify.robots_txt),
    path("streamed/long/", views_verify.streamed, {"fails": False}),
    path("streamed/failing/", views_verify.streamed, {"fails": True}),
    path("", include("django_sitemapkit.urls")),
]
