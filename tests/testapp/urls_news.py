"""Another app's URLs, under the application namespace ``news``, with a ``post``
that takes other arguments than ``blog``'s (for sitemapkit.E010)."""

from __future__ import annotations

from django.urls import path

from testapp.urls import page

app_name = "news"

urlpatterns = [
    path("<int:year>/<slug:slug>/", page, name="post"),
]
