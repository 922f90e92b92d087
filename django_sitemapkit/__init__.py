"""Fast, streaming, strictly valid XML sitemaps for Django, declared from your models."""

from __future__ import annotations

from django_sitemapkit.changes import changed
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import News, Related, Restriction, Video
from django_sitemapkit.registry import register, registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources import Field, SitemapSource, StaticPage, StaticSource

__all__ = [
    "Field",
    "InvalidEntry",
    "News",
    "Related",
    "Restriction",
    "SitemapSite",
    "SitemapSource",
    "StaticPage",
    "StaticSource",
    "Video",
    "changed",
    "register",
    "registry",
]
