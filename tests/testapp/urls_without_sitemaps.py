"""A URLconf that forgot ``include("django_sitemapkit.urls")``."""

from __future__ import annotations

from django.urls import path

from testapp.urls import page

urlpatterns = [path("", page, name="home"), path("about/", page, name="about")]
