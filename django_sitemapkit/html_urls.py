"""``include("django_sitemapkit.html_urls")`` serves the sitemap as HTML, for people:
``sitemap.html`` (every section and page) and ``sitemap-<section>-<page>.html``.

Opt-in: only a project that includes these URLs has the pages. The XML never
links to them.
"""

from __future__ import annotations

from django.urls import path

from django_sitemapkit import views

# Importing urls registers the section and page converters (once: Django
# refuses a second registration of a name).
from django_sitemapkit.urls import InstalledCheckPattern

app_name = "sitemapkit_html"
urlpatterns = [
    InstalledCheckPattern(path("sitemap.html", views.html_index, name="index"), __name__),
    path(
        "sitemap-<sitemapkit_section:section>-<sitemapkit_page:page>.html",
        views.html_page,
        name="page",
    ),
]
