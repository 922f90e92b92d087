"""django.contrib.sitemaps classes as projects write them, for tests/test_compat.py:
served by contrib's views and by django_sitemapkit.compat's side by side."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.sitemaps import GenericSitemap, Sitemap
from django.db.models import QuerySet
from django.urls import reverse

from testapp.models import Article

SITE = "https://www.example.com"


def published() -> QuerySet[Article]:
    # Ordered: Django's Paginator warns about an unordered QuerySet.
    found: QuerySet[Article] = Article.objects.filter(published=True).order_by("pk")
    return found


class ArticleSitemap(Sitemap):  # type: ignore[type-arg]
    """A QuerySet, values from methods, and a small limit: pages of three."""

    limit = 3
    changefreq = "weekly"

    def items(self) -> QuerySet[Article]:
        return published()

    def location(self, item: Article) -> str:
        return reverse("article-detail", kwargs={"slug": item.slug})

    def lastmod(self, item: Article) -> dt.datetime | None:
        return item.updated_at

    def priority(self, item: Article) -> float | None:
        return item.priority


class StaticViewSitemap(Sitemap):  # type: ignore[type-arg]
    """A list of URL names (the contrib documentation's example)."""

    priority = 0.5
    changefreq = "daily"

    def items(self) -> list[str]:
        return ["home", "about"]

    def location(self, item: str) -> str:
        return reverse(item)


class EmptySitemap(Sitemap):  # type: ignore[type-arg]
    def items(self) -> list[str]:
        return []


class OwnUrlsSitemap(Sitemap):  # type: ignore[type-arg]
    """Overrides ``get_urls()`` as Wagtail's and djangoproject.com's classes do."""

    def items(self) -> list[str]:
        return ["about"]

    def location(self, item: str) -> str:
        return reverse(item)

    def get_urls(self, page: Any = 1, site: Any = None, protocol: Any = None) -> list[Any]:
        urls = super().get_urls(page, site, protocol)
        for url in urls:
            url["priority"] = "0.9"
            url["lastmod"] = dt.date(2024, 5, 1)
        urls.append({"location": f"{protocol}://{site.domain}/own/", "changefreq": "never"})
        return urls


class AbsoluteSitemap(Sitemap):  # type: ignore[type-arg]
    """Locations already absolute: one on the site, one on another host."""

    def items(self) -> list[str]:
        return [f"{SITE}/absolute/", "https://elsewhere.example.org/foreign/"]

    def location(self, item: str) -> str:
        return item


class AbsoluteOwnUrlsSitemap(AbsoluteSitemap):
    """contrib's ``_urls()`` puts its prefix before an absolute location too."""

    def get_urls(self, page: Any = 1, site: Any = None, protocol: Any = None) -> list[Any]:
        return super().get_urls(page, site, protocol)


class HttpSitemap(StaticViewSitemap):
    protocol = "http"


class HttpOwnUrlsSitemap(HttpSitemap):
    def get_urls(self, page: Any = 1, site: Any = None, protocol: Any = None) -> list[Any]:
        return super().get_urls(page, site, protocol)


GENERIC_INFO: dict[str, Any] = {"queryset": published(), "date_field": "updated_at"}
GENERIC: GenericSitemap[Article] = GenericSitemap(GENERIC_INFO, priority=0.4, changefreq="monthly")

#: Classes and instances mixed, as contrib's views take them.
SITEMAPS: dict[str, Any] = {
    "articles": ArticleSitemap,
    "static": StaticViewSitemap(),
    "empty": EmptySitemap,
    "generic": GENERIC,
    "own": OwnUrlsSitemap(),
}
#: Sections whose output differs from contrib's on purpose.
DIFFERENT: dict[str, Any] = {
    "absolute": AbsoluteSitemap,
    "absolute-own": AbsoluteOwnUrlsSitemap,
    "http": HttpSitemap,
    "http-own": HttpOwnUrlsSitemap,
}


class ManySitemap(Sitemap):  # type: ignore[type-arg]
    """50,001 items: two pages at contrib's default limit of 50,000."""

    def items(self) -> list[int]:
        return list(range(50_001))

    def location(self, item: int) -> str:
        return f"/n/{item}/"


#: One section too large for one page.
MANY: dict[str, Any] = {"many": ManySitemap}
