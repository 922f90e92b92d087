"""Other ``.txt`` files of the project after ``django_sitemapkit.urls``, one of them
of a key's shape (``llms-full``), and a pattern that answers any other name."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def text_file(request: HttpRequest, name: str = "llms-full") -> HttpResponse:
    return HttpResponse(f"the project's {name}.txt", content_type="text/plain")


urlpatterns = [
    path("", include("django_sitemapkit.urls")),
    path("llms-full.txt", text_file, name="llms-full"),
    path("<str:name>.txt", text_file, name="text-file"),
]
