"""An app's URLs under the application namespace ``blog`` (for sitemapkit.E010)."""

from __future__ import annotations

from django.urls import path

from testapp.urls import page

app_name = "blog"

urlpatterns = [
    path("<slug:slug>/", page, name="post"),
]
