"""The drop-in views given a template_name (sitemapkit.W011), beside patterns that
must not warn: contrib's default templates, contrib's own views, no template."""

from __future__ import annotations

from django.contrib.sitemaps import views as contrib
from django.urls import include, path, re_path
from django.views.decorators.cache import cache_page

from django_sitemapkit.compat import index, sitemap
from testapp.contrib_sitemaps import SITEMAPS

shop = [
    # A project's own decorator around the drop-in view.
    path(
        "sitemap-<section>.xml",
        cache_page(60)(sitemap),
        {"sitemaps": SITEMAPS, "template_name": "shop/sitemap.xml"},
        name="shop-section",
    ),
]
news = [path("all.xml", sitemap, {"sitemaps": SITEMAPS})]

urlpatterns = [
    path(
        "sitemap.xml",
        index,
        {"sitemaps": SITEMAPS, "template_name": "custom_index.xml", "sitemap_url_name": "x"},
    ),
    path("shop/", include(shop)),
    # A template given to a whole include() reaches its views too.
    re_path(r"^news/", include(news), {"template_name": ["news.xml", "sitemap.xml"]}),
    # contrib's defaults: what the view writes anyway.
    path("default.xml", index, {"sitemaps": SITEMAPS, "template_name": "sitemap_index.xml"}),
    path("default-<section>.xml", sitemap, {"sitemaps": SITEMAPS, "template_name": "sitemap.xml"}),
    # contrib's own views render the template they are given.
    path("contrib.xml", contrib.index, {"sitemaps": SITEMAPS, "template_name": "custom_index.xml"}),
    path("plain.xml", sitemap, {"sitemaps": SITEMAPS}),
    path("", include("testapp.urls")),
]
