"""How the checks name a source in their messages."""

from __future__ import annotations

from django_sitemapkit.sources.declaration import BaseSource


def describe(source: BaseSource) -> str:
    cls = type(source)
    return f"Sitemap source {cls.__module__}.{cls.__qualname__}"
