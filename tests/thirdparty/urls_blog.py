"""The blog host's URLconf under django-hosts (thirdparty/hosts.py; test_compat_hosts.py
adds its middleware): its posts (flat pages here) and their sitemap, through
contrib's view under /own/ and the drop-in under /dropin/."""

from __future__ import annotations

from typing import Any

from django.contrib.flatpages.models import FlatPage
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as contrib_views
from django.urls import URLPattern, path, reverse
from django.views.generic import TemplateView
from django_hosts.resolvers import reverse as host_reverse

from django_sitemapkit import compat


class PostSitemap(Sitemap[FlatPage]):
    """Posts located with Django's ``reverse()``: the blog host's URLconf, which the
    middleware makes the current one, gives a path."""

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def location(self, item: FlatPage) -> str:
        return reverse("post", kwargs={"slug": item.url.strip("/")})


class HostPostSitemap(PostSitemap):
    """Posts located with django-hosts' ``reverse()``: an absolute URL on the blog host."""

    def location(self, item: FlatPage) -> str:
        return str(host_reverse("post", kwargs={"slug": item.url.strip("/")}, host="blog"))


SITEMAPS: dict[str, Any] = {"posts": PostSitemap, "hosted": HostPostSitemap}

urlpatterns: list[URLPattern] = [
    path("post/<slug:slug>/", TemplateView.as_view(), name="post"),
    path("own/<section>.xml", contrib_views.sitemap, {"sitemaps": SITEMAPS}),
    path("dropin/<section>.xml", compat.sitemap, {"sitemaps": SITEMAPS}),
]
