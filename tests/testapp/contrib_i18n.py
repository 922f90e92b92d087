"""django.contrib.sitemaps classes with ``i18n``, for tests/test_compat_i18n.py: the
URLs in several languages (``i18n_patterns``), served by contrib's views and by
django_sitemapkit.compat's side by side (tests/testapp/urls_compat_i18n.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet
from django.urls import reverse

from testapp.models import Article


class ArticlesInLanguages(Sitemap):  # type: ignore[type-arg]
    """A QuerySet in three languages, with alternates and an x-default; pages of four
    URLs, so a page ends in the middle of an article's languages."""

    i18n = True
    languages = ["en", "fr", "de"]
    alternates = True
    x_default = True
    limit = 4

    def items(self) -> QuerySet[Article]:
        found: QuerySet[Article] = Article.objects.filter(published=True).order_by("pk")
        return found

    def location(self, item: Article) -> str:
        return reverse("article-detail", kwargs={"slug": item.slug})

    def lastmod(self, item: Article) -> Any:
        return item.updated_at


class PagesPerItem(Sitemap):  # type: ignore[type-arg]
    """Languages that differ per item (``get_languages_for_item()``), no x-default."""

    i18n = True
    alternates = True

    def items(self) -> list[str]:
        return ["home", "about"]

    def location(self, item: str) -> str:
        return reverse(item)

    def get_languages_for_item(self, item: str) -> list[str]:
        return ["en", "fr"] if item == "home" else ["en", "de", "fr"]


class WithoutAlternates(ArticlesInLanguages):
    alternates = False
    x_default = False


SITEMAPS: dict[str, Any] = {
    "articles": ArticlesInLanguages,
    "pages": PagesPerItem(),
    "plain": WithoutAlternates,
}
