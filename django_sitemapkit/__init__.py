"""Fast, streaming, strictly valid XML sitemaps for Django, declared from your models."""

from __future__ import annotations

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.registry import register, registry
from django_sitemapkit.sources import Field, SitemapSource, StaticPage, StaticSource

__all__ = [
    "Field",
    "InvalidEntry",
    "SitemapSource",
    "StaticPage",
    "StaticSource",
    "register",
    "registry",
]
