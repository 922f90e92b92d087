"""The sitemap index: one entry per non-empty page of every section."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from django_sitemapkit.conf import conf
from django_sitemapkit.encoder import Entry
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations import GZIP_SUFFIX, Origin, page_path
from django_sitemapkit.registry import registry
from django_sitemapkit.sources import BaseSource, LastmodValue
from django_sitemapkit.values import format_lastmod, newest_lastmod


class IndexedPage(NamedTuple):
    source: BaseSource
    page: int
    lastmod: LastmodValue | None


def indexed_pages() -> Iterator[IndexedPage]:
    """Every page of every section; a section with no rows has none."""
    for source in registry.sections():
        for page, lastmod in enumerate(source.page_lastmods(), start=1):
            yield IndexedPage(source, page, lastmod)


def index_entries(pages: list[IndexedPage], origin: Origin) -> list[Entry]:
    suffix = GZIP_SUFFIX if conf.GZIP_LINKS else ""
    return [
        Entry(
            origin.url + page_path(item.source.name, item.page) + suffix,
            index_lastmod(item.lastmod),
        )
        for item in pages
    ]


def index_lastmod(value: LastmodValue | None) -> str | None:
    """A page's newest lastmod, left out if it cannot be written (the entry that
    holds it is skipped from the page itself, for the same reason)."""
    if value is None:
        return None
    try:
        return format_lastmod(value)
    except InvalidEntry:
        return None


def newest(pages: list[IndexedPage]) -> LastmodValue | None:
    return newest_lastmod(item.lastmod for item in pages)
