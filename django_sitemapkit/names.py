"""The names of the sitemap files, which are also the last segment of their URLs.

One grammar for the URLs, the system checks (``sitemapkit.E007``), the build
and the file serving.
"""

from __future__ import annotations

import re

INDEX_FILENAME = "sitemap.xml"
# Published with the files: what the set holds and how it was built (build/manifest.py).
MANIFEST_FILENAME = "sitemapkit-manifest.json"
GZIP_SUFFIX = ".gz"
# The section names the system checks allow (sitemapkit.E007).
SECTION_PATTERN = "[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
# For fullmatch(): the URLs, the checks (E007) and the build all take this one.
SECTION_NAME = re.compile(SECTION_PATTERN)
# The names SITEMAPKIT_SITES may give a site: each names the directory (or
# storage prefix) of the site's built files, so no separator and no "..".
SITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# IndexNow (indexnow.org, "Verify ownership via a key"): a key is 8 to 128
# characters among a-z, A-Z, 0-9 and "-"; its file is "<key>.txt".
INDEXNOW_KEY_PATTERN = "[a-zA-Z0-9-]{8,128}"
INDEXNOW_KEY = re.compile(INDEXNOW_KEY_PATTERN)
PAGE_FILENAME = re.compile(
    rf"\Asitemap-(?P<section>{SECTION_PATTERN})-(?P<page>[1-9][0-9]*)\.xml\Z"
)


def page_filename(section: str, page: int) -> str:
    return f"sitemap-{section}-{page}.xml"


def page_number(name: str) -> int | None:
    """The number in a page file's name."""
    match = PAGE_FILENAME.match(without_gzip_suffix(name))
    return None if match is None else int(match["page"])


def without_gzip_suffix(name: str) -> str:
    return name[: -len(GZIP_SUFFIX)] if name.endswith(GZIP_SUFFIX) else name


def section_of(name: str) -> str | None:
    """The section of a page file's name (or of the last segment of its URL)."""
    match = PAGE_FILENAME.match(without_gzip_suffix(name.rsplit("/", 1)[-1]))
    return None if match is None else match["section"]


def is_index(name: str) -> bool:
    return without_gzip_suffix(name) == INDEX_FILENAME


def is_sitemap_file(name: str) -> bool:
    """Whether ``name`` is one of the files a build writes (so may be replaced or removed)."""
    return is_index(name) or section_of(name) is not None
