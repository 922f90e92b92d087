"""The URLs a site's built set lists: its manifest, then each page file it names, read
through the store the views serve them from (a directory, a storage, S3).

Nothing read is trusted. The manifest is read bounded (``manifest.MOST_BYTES``)
and checked whole by the build's own schema (``build/reading.py``); a page
file is read a block at a time, never past the protocol's 50 MiB nor its
50,000 URLs, by the streaming reader that refuses a document type declaration
(``encoding/reading.py``). A page that fails is one failure of its section,
its URLs unverified; a manifest that fails stops the site's verification,
naming the file and why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.build.manifest import MOST_BYTES, Manifest, ManifestFile, Unreadable
from django_sitemapkit.build.reading import manifest
from django_sitemapkit.conf import MAX_BYTES, MAX_URLS
from django_sitemapkit.documents import index_locs
from django_sitemapkit.encoding.reading import read_urlset
from django_sitemapkit.names import MANIFEST_FILENAME
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.verification.listing import Listed, Page, Wanted
from django_sitemapkit.views.serving import built_files
from django_sitemapkit.views.stores import LocalDirectory, StorageDirectory, StorageUnavailable

Store = LocalDirectory | StorageDirectory


class UnreadableSet(Exception):
    """A site's built set cannot be verified: no set, or no manifest to trust."""


def read_bounded(store: Store, name: str, most: int) -> bytes | None:
    """The bytes of ``name`` in ``store`` (``None`` if there is no such file), refused
    past ``most``."""
    opened = store.open(name)
    if opened is None:
        return None
    try:
        content = opened.body().read(most + 1)
    finally:
        opened.close()
    if len(content) > most:
        raise Unreadable(f"more than {most:,} bytes")
    return content


def built_set(site: SitemapSite) -> tuple[Store, Manifest]:
    """Where ``site``'s published files are, and their manifest, checked whole."""
    try:
        store = built_files(site)
        content = read_bounded(store, MANIFEST_FILENAME, MOST_BYTES)
    except (ImproperlyConfigured, StorageUnavailable, Unreadable, OSError) as exc:
        raise UnreadableSet(f"The built set of site {site.name!r} cannot be read: {exc}") from exc
    if content is None:
        raise UnreadableSet(
            f"Site {site.name!r} has no built set ({MANIFEST_FILENAME} is not there); run "
            "build_sitemaps first, or verify the database's sitemap without --built."
        )
    try:
        return store, manifest(json.loads(content))
    except (ValueError, RecursionError) as exc:
        raise UnreadableSet(
            f"{MANIFEST_FILENAME} of site {site.name!r} cannot be read "
            f"({type(exc).__name__}: {exc}); run build_sitemaps to publish a new one."
        ) from exc


@dataclass(frozen=True)
class BuiltSection:
    """A section's URLs as its published files list them."""

    section: str
    files: tuple[ManifestFile, ...]
    store: Store
    base_url: str

    @property
    def urls(self) -> int:
        return sum(file.urls for file in self.files)

    def pages(self, wanted: Wanted) -> Iterator[Page]:
        first = 0
        for file in self.files:
            if wanted(first, file.urls):
                yield self.page(first, file.name)
            first += file.urls

    def page(self, first: int, name: str) -> Page:
        try:
            return Page(first, self.read(name))
        except (ValueError, Unreadable, OSError, StorageUnavailable) as exc:
            (url,) = index_locs(self.base_url, [name], gzip_links=False)
            return Page(first, [], (url, str(exc)))

    def read(self, name: str) -> list[Listed]:
        opened = self.store.open(name)
        if opened is None:
            raise Unreadable("it is not in the built set, which its manifest lists")
        try:
            return page_urls(opened.body(), name)
        finally:
            opened.close()


def built_sections(site: SitemapSite, store: Store, recorded: Manifest) -> list[BuiltSection]:
    """Every section of the set in the order it was built, its files in the order of
    its shards."""
    order = dict.fromkeys([*(shard.section for shard in recorded.shards), *recorded.sections])
    return [
        BuiltSection(
            section,
            tuple(file for shard in recorded.section_shards(section) for file in shard.files),
            store,
            site.base_url,
        )
        for section in order
    ]


def page_urls(file: IO[bytes], name: str) -> list[Listed]:
    """The ``<loc>`` and alternates of each ``<url>`` of a page file, read a block at a
    time, never past the protocol's limits; ``ValueError`` for what no build writes."""
    found = read_urlset(file, name, most_urls=MAX_URLS, most_bytes=MAX_BYTES)
    return [Listed(url.loc, url.alternates) for url in found]
