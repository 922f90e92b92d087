"""A pattern answering every ``.txt`` name before ``django_sitemapkit.urls``: it takes
the IndexNow key file's URL too."""

from __future__ import annotations

from django.urls import include, path

from testapp.urls_text_files import text_file

urlpatterns = [
    path("<str:name>.txt", text_file, name="text-file"),
    path("", include("django_sitemapkit.urls")),
]
