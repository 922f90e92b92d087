"""The URLs of the benchmark's django CMS children: the example project's, and django
CMS's pages (``cms.urls``, last, as its docs include them), which its sitemap's
locations reverse."""

from __future__ import annotations

from django.urls import include, path

from mysite.urls import urlpatterns as example_urlpatterns

urlpatterns = [*example_urlpatterns, path("", include("cms.urls"))]
