"""URLs in several languages (``i18n_patterns``), with the sitemaps outside them and
the HTML sitemap included."""

from __future__ import annotations

from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from testapp.urls import page

urlpatterns = [
    path("", include("django_sitemapkit.urls")),
    path("", include("django_sitemapkit.html_urls")),
    *i18n_patterns(
        path("articles/<str:slug>/", page, name="article-detail"),
        path("by-id/<int:pk>/", page, name="article-by-pk"),
        path(_("about/"), page, name="about"),
        path("", page, name="home"),
    ),
]
