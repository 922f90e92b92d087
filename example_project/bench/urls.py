"""``/bench/<slug>/``: the locations the benchmark's sitemaps list, and the
pages of django.contrib.sitemaps' index."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path, re_path


def page(request: HttpRequest, slug: str) -> HttpResponse:
    # The sitemaps only need the URL to reverse; the page itself is a stub.
    return HttpResponse(slug, content_type="text/plain; charset=utf-8")


def contrib_sitemap(request: HttpRequest, section: str) -> HttpResponse:
    """``/bench/contrib-sitemap-<section>.xml?p=N``: the pages that the
    ``contrib-index`` case's index (django.contrib.sitemaps' ``index`` view) lists."""
    from django.contrib.sitemaps import views

    from bench.sizes import PAGE_MAX
    from bench.sources import contrib_index_sitemaps

    response: HttpResponse = views.sitemap(
        request, sitemaps=contrib_index_sitemaps(PAGE_MAX), section=section
    )
    return response


urlpatterns = [
    path("<slug:slug>/", page, name="bench-page"),
    # The same locations from a regular expression, for the ours-regex case: the
    # package cannot compile a re_path() into a URL template, so it calls
    # reverse() for every row. Never resolved (the path() above matches first).
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/$", page, name="bench-page-re"),
    path("contrib-sitemap-<slug:section>.xml", contrib_sitemap, name="bench-contrib-sitemap"),
]
