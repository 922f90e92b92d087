"""Autodiscovered by django_sitemapkit: the sources every test starts with."""

from __future__ import annotations

from django_sitemapkit import SitemapSource, StaticSource, register
from testapp.models import Article


@register
class ArticleSource(SitemapSource):
    name = "articles"
    queryset = Article.objects.filter(published=True)
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    changefreq = "weekly"
    priority = 0.6


@register
class PagesSource(StaticSource):
    name = "pages"
    urls = ["home", "about"]
    changefreq = "monthly"
