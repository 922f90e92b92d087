"""``/bench/<slug>/``: the locations the benchmark's sitemaps list."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path


def page(request: HttpRequest, slug: str) -> HttpResponse:
    # The sitemaps only need the URL to reverse; the page itself is a stub.
    return HttpResponse(slug, content_type="text/plain; charset=utf-8")


urlpatterns = [
    path("<slug:slug>/", page, name="bench-page"),
]
