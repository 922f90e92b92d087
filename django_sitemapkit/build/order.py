"""The order a set's files are replaced in a storage, which can replace only one file at
a time: a page and its ``.gz`` never serve two versions.

The views answer a client that accepts gzip with a page's ``.gz``, and any
other client with its ``.xml`` (``views/serving.py``): two readers of one URL
read two files. So of each file's two names, the one that is not linked (from
the index, or for the index from robots.txt) is deleted before the linked one
is uploaded, and uploaded after it. At every moment, and after a publish that
stops at any point, a reader gets the page's one version, or only the linked
name is there (a client that accepts gzip then gets the ``.xml``, the one the
index links; with ``--gzip-links``, a client that does not gets a 404 on the
``.xml``, which no index names). The linked names are never missing.
"""

from __future__ import annotations

from django_sitemapkit.build.manifest import ManifestFile
from django_sitemapkit.names import GZIP_SUFFIX, is_index, without_gzip_suffix


def publish_order(file: ManifestFile, gzip_links: bool) -> list[str]:
    """``file``'s names, the one the index (or robots.txt) links first."""
    linked_gzip = gzip_links and not is_index(file.name)
    return sorted(file.names(), key=lambda name: name.endswith(GZIP_SUFFIX) != linked_gzip)


def publish_waves(written: list[str]) -> tuple[list[str], list[list[str]]]:
    """The names of ``written`` (each file's names in ``publish_order()``) to delete
    first, and the uploads in order: the pages' linked names, then their others, then
    the index's likewise.

    Each wave is one call of ``put()``, which may upload its names at once
    (``distributed/staging.py``): the order that matters is between waves.
    """
    seen: set[str] = set()
    linked: list[str] = []
    unlinked: list[str] = []
    for name in written:
        stem = without_gzip_suffix(name)
        (unlinked if stem in seen else linked).append(name)
        seen.add(stem)

    def of(names: list[str], index: bool) -> list[str]:
        return [name for name in names if is_index(name) == index]

    waves = [of(linked, False), of(unlinked, False), of(linked, True), of(unlinked, True)]
    return unlinked, [wave for wave in waves if wave]
