"""The test URLconf with django.contrib.sitemaps' old page URLs redirected,
included after django_sitemapkit.urls as the docs say."""

from __future__ import annotations

from django.urls import include, path

from testapp.urls import urlpatterns as site_patterns

urlpatterns = [*site_patterns, path("", include("django_sitemapkit.contrib_redirects"))]
