"""Sources: what a project declares, compiled into a plan, paged, read and written.

``declaration`` (the classes a project subclasses) → ``plan`` (compiled once)
→ ``pages`` and ``rows`` (queries, keyset seeks, the raw cursor) → ``entries``,
``extended`` and ``writer`` (values checked and formatted, a bad row skipped and
logged). ``lastmods`` answers the index.
"""

from __future__ import annotations

from django_sitemapkit.sources.declaration import (
    BaseSource,
    Field,
    SitemapSource,
    StaticPage,
    StaticSource,
)

__all__ = ["BaseSource", "Field", "SitemapSource", "StaticPage", "StaticSource"]
