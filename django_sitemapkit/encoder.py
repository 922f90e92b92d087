"""Template-free streaming encoder: ``<urlset>`` and ``<sitemapindex>`` bytes from entries.

Nothing here builds a tree or a template: each entry becomes one line of
UTF-8 bytes, lines are gathered into chunks of about ``CHUNK_BYTES`` and
yielded, and the byte count is kept so no document passes the protocol's
50 MiB cap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from django_sitemapkit.conf import MAX_BYTES, MAX_URLS

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'
CHUNK_BYTES = 64 * 1024

# sitemaps.org protocol, "Entity escaping": these five, and only once
# ("&" first, so no entity is escaped again).
_ESCAPES = (("&", "&amp;"), ("'", "&apos;"), ('"', "&quot;"), (">", "&gt;"), ("<", "&lt;"))


class Entry(NamedTuple):
    """One ``<url>`` (or ``<sitemap>``) with its values already validated and formatted."""

    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None


_NEEDS_ESCAPE = re.compile("[&'\"><]").search


def escape(text: str) -> str:
    # Most locations need no escaping: one search in C settles it, far
    # cheaper than rewriting the string.
    if _NEEDS_ESCAPE(text) is None:
        return text
    for char, entity in _ESCAPES:
        text = text.replace(char, entity)
    return text


def url_element(entry: Entry) -> str:
    # Schema order: loc, lastmod, changefreq, priority. The values other than
    # loc are formatted by values.py and hold nothing to escape.
    loc, lastmod, changefreq, priority = entry
    if _NEEDS_ESCAPE(loc) is not None:
        loc = escape(loc)
    line = "<url><loc>" + loc
    if lastmod is not None:
        line += "</loc><lastmod>" + lastmod + "</lastmod>"
    else:
        line += "</loc>"
    if changefreq is not None:
        line += "<changefreq>" + changefreq + "</changefreq>"
    if priority is not None:
        line += "<priority>" + priority + "</priority>"
    return line + "</url>\n"


def sitemap_element(entry: Entry) -> str:
    lastmod = "" if entry.lastmod is None else f"<lastmod>{entry.lastmod}</lastmod>"
    return f"<sitemap><loc>{escape(entry.loc)}</loc>{lastmod}</sitemap>\n"


class Document(NamedTuple):
    root: str
    element: Callable[[Entry], str]

    @property
    def opening(self) -> bytes:
        return XML_DECLARATION + f'<{self.root} xmlns="{NAMESPACE}">\n'.encode()

    @property
    def closing(self) -> bytes:
        return f"</{self.root}>\n".encode()


URLSET = Document("urlset", url_element)
SITEMAPINDEX = Document("sitemapindex", sitemap_element)


class Encoder:
    """Writes one document, counting URLs and bytes as it goes.

    After the stream is exhausted, ``count`` is the number of entries written
    and ``cut`` is true when an entry was left out because it would have taken
    the document past ``max_bytes`` or ``max_urls``; that entry is kept in
    ``overflow`` so a caller can start the next document with it. ``newest``
    is the newest ``lastmod`` written (the formatted values sort in time
    order, a date counting as midnight UTC).
    """

    def __init__(
        self,
        document: Document,
        *,
        max_urls: int = MAX_URLS,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.document = document
        self.max_urls = max_urls
        self.max_bytes = max_bytes
        self.count = 0
        self.size = 0
        self.cut = False
        self.overflow: Entry | None = None
        self.newest: str | None = None

    def stream(self, entries: Iterable[Entry]) -> Iterator[bytes]:
        opening, closing = self.document.opening, self.document.closing
        element = self.document.element
        max_urls, max_bytes = self.max_urls, self.max_bytes
        # Kept in locals while the loop runs (it runs once per URL) and stored
        # back however the loop ends.
        count, size, newest = 0, len(opening) + len(closing), ""
        chunk = [opening]
        chunk_size = len(opening)
        try:
            for entry in entries:
                line = element(entry).encode()
                if count == max_urls or size + len(line) > max_bytes:
                    self.cut = True
                    self.overflow = entry
                    break
                count += 1
                size += len(line)
                lastmod = entry[1]
                # "" sorts before every formatted lastmod.
                if lastmod is not None and lastmod > newest:
                    newest = lastmod
                chunk.append(line)
                chunk_size += len(line)
                if chunk_size >= CHUNK_BYTES:
                    yield b"".join(chunk)
                    chunk, chunk_size = [], 0
        finally:
            self.count, self.size, self.newest = count, size, newest or None
        # Only a complete document gets its closing tag: an exception above
        # ends the stream without it, so a client can tell it was cut short.
        chunk.append(closing)
        yield b"".join(chunk)
