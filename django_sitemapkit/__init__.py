"""Fast, streaming, strictly valid XML sitemaps for Django, declared from your models."""

from __future__ import annotations

from django_sitemapkit.changes import changed
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import News, Related, Restriction, Video
from django_sitemapkit.registry import register, registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources import Field, SitemapSource, StaticPage, StaticSource

# The version's one home: pyproject.toml reads it from here
# ([tool.setuptools.dynamic]), as a literal, without importing the package.
__version__ = "0.1.0"

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
