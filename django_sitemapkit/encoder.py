"""Template-free streaming encoder: ``<urlset>`` and ``<sitemapindex>`` bytes from entries.

Nothing here builds a tree or a template: each entry becomes one line of
UTF-8 bytes, lines are gathered into chunks of about ``CHUNK_BYTES`` and
yielded, and the byte count is kept so no document passes the protocol's
50 MiB cap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import cache
from typing import NamedTuple, Protocol

from django_sitemapkit.conf import MAX_BYTES, MAX_URLS

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'
CHUNK_BYTES = 64 * 1024

# sitemaps.org protocol, "Entity escaping": these five, and only once
# ("&" first, so no entity is escaped again).
_ESCAPES = (("&", "&amp;"), ("'", "&apos;"), ('"', "&quot;"), (">", "&gt;"), ("<", "&lt;"))


# The extension namespaces (sitemaps.org protocol, "Extending the Sitemaps
# protocol"), by the prefix each is written with. A document declares only the
# ones its source uses.
EXTENSION_NAMESPACES = {
    "xhtml": "http://www.w3.org/1999/xhtml",
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
}


class NewsItem(NamedTuple):
    """``<news:news>``: the four values Google News reads, formatted."""

    name: str
    language: str
    publication_date: str
    title: str


class VideoItem(NamedTuple):
    """``<video:video>`` with its values formatted; ``None`` leaves an element out."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    duration: str | None = None
    expiration_date: str | None = None
    rating: str | None = None
    view_count: str | None = None
    publication_date: str | None = None
    tags: tuple[str, ...] = ()
    family_friendly: str | None = None
    #: ``(relationship, "US CA")`` for ``<video:restriction>``.
    restriction: tuple[str, str] | None = None
    requires_subscription: str | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    #: ``(relationship, "web tv")`` for ``<video:platform>``.
    platform: tuple[str, str] | None = None
    live: str | None = None


class Extras(NamedTuple):
    """The extension elements of one ``<url>``, written after ``<priority>``."""

    #: ``(hreflang, href)`` of each ``xhtml:link rel="alternate"``, the URL's own included.
    alternates: tuple[tuple[str, str], ...] = ()
    images: tuple[str, ...] = ()
    videos: tuple[VideoItem, ...] = ()
    news: NewsItem | None = None


class Entry(NamedTuple):
    """One ``<url>`` (or ``<sitemap>``) with its values already validated and formatted."""

    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    extras: Extras | None = None


#: Whether a text holds a character to escape (a search in C, far cheaper than a rewrite).
NEEDS_ESCAPE = re.compile("[&'\"><]").search


def escape(text: str) -> str:
    # Most locations need no escaping: one search in C settles it, far
    # cheaper than rewriting the string.
    if NEEDS_ESCAPE(text) is None:
        return text
    for char, entity in _ESCAPES:
        text = text.replace(char, entity)
    return text


def url_element(entry: Entry) -> str:
    # Schema order: loc, lastmod, changefreq, priority. The values other than
    # loc are formatted by values.py and hold nothing to escape.
    loc, lastmod, changefreq, priority, extras = entry
    if NEEDS_ESCAPE(loc) is not None:
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
    if extras is not None:
        # sitemap.xsd: elements of other namespaces come after <priority>.
        line += extension_elements(extras)
    return line + "</url>\n"


def extension_elements(extras: Extras) -> str:
    alternates, images, videos, news = extras
    parts = [
        f'<xhtml:link rel="alternate" hreflang="{escape(hreflang)}" href="{escape(href)}"/>'
        for hreflang, href in alternates
    ]
    # Google reads <image:loc> only: caption, title, geo_location and license
    # were retired in 2022.
    parts.extend(
        f"<image:image><image:loc>{escape(loc)}</image:loc></image:image>" for loc in images
    )
    parts.extend(video_element(video) for video in videos)
    if news is not None:
        parts.append(news_element(news))
    return "".join(parts)


def news_element(news: NewsItem) -> str:
    # sitemap-news.xsd order: publication (name, language), publication_date, title.
    return (
        "<news:news><news:publication>"
        f"<news:name>{escape(news.name)}</news:name>"
        f"<news:language>{escape(news.language)}</news:language>"
        f"</news:publication><news:publication_date>{news.publication_date}"
        f"</news:publication_date><news:title>{escape(news.title)}</news:title></news:news>"
    )


def video_element(video: VideoItem) -> str:
    # sitemap-video.xsd order, which is the order of VideoItem's fields.
    parts = ["<video:video>"]
    for name in ("thumbnail_loc", "title", "description", "content_loc", "player_loc"):
        parts.append(_video_child(name, getattr(video, name)))
    for name in ("duration", "expiration_date", "rating", "view_count", "publication_date"):
        parts.append(_video_child(name, getattr(video, name)))
    parts.extend(_video_child("tag", tag) for tag in video.tags)
    parts.append(_video_child("family_friendly", video.family_friendly))
    if video.restriction is not None:
        relationship, countries = video.restriction
        parts.append(
            f'<video:restriction relationship="{relationship}">{countries}</video:restriction>'
        )
    parts.append(_video_child("requires_subscription", video.requires_subscription))
    if video.uploader is not None:
        info = "" if video.uploader_info is None else f' info="{escape(video.uploader_info)}"'
        parts.append(f"<video:uploader{info}>{escape(video.uploader)}</video:uploader>")
    if video.platform is not None:
        relationship, platforms = video.platform
        parts.append(f'<video:platform relationship="{relationship}">{platforms}</video:platform>')
    parts.append(_video_child("live", video.live))
    parts.append("</video:video>")
    return "".join(parts)


def _video_child(name: str, text: str | None) -> str:
    return "" if text is None else f"<video:{name}>{escape(text)}</video:{name}>"


def sitemap_element(entry: Entry) -> str:
    lastmod = "" if entry.lastmod is None else f"<lastmod>{entry.lastmod}</lastmod>"
    return f"<sitemap><loc>{escape(entry.loc)}</loc>{lastmod}</sitemap>\n"


class Document(NamedTuple):
    root: str
    element: Callable[[Entry], str]
    #: The extension prefixes declared on the root (keys of EXTENSION_NAMESPACES).
    extensions: tuple[str, ...] = ()

    @property
    def opening(self) -> bytes:
        declarations = "".join(
            f' xmlns:{prefix}="{EXTENSION_NAMESPACES[prefix]}"' for prefix in self.extensions
        )
        return XML_DECLARATION + f'<{self.root} xmlns="{NAMESPACE}"{declarations}>\n'.encode()

    @property
    def closing(self) -> bytes:
        return f"</{self.root}>\n".encode()


URLSET = Document("urlset", url_element)
SITEMAPINDEX = Document("sitemapindex", sitemap_element)


@cache
def urlset(extensions: Collection[str] = ()) -> Document:
    """The ``<urlset>`` document declaring the namespaces of ``extensions``, and no others."""
    return URLSET._replace(
        extensions=tuple(prefix for prefix in EXTENSION_NAMESPACES if prefix in extensions)
    )


#: The lines of a run of entries, and the ``lastmod`` of each.
Lines = tuple[list[str], list["str | None"]]


class Layout(Protocol):
    """What the encoder writes around the lines."""

    @property
    def opening(self) -> bytes: ...

    @property
    def closing(self) -> bytes: ...


class Encoder:
    """Writes one document from runs of lines, counting URLs and bytes as it goes.

    After the stream is exhausted, ``count`` is the number of lines written
    and ``cut`` is true when a line was left out because it would have taken
    the document past ``max_bytes`` or ``max_urls``; that line and the rest
    of its run are kept in ``overflow`` so a caller can start the next
    document with them. ``newest`` is the newest ``lastmod`` written (the
    formatted values sort in time order, a date counting as midnight UTC).
    """

    def __init__(
        self,
        document: Layout,
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
        self.overflow: Lines | None = None
        self.newest: str | None = None

    def stream(self, runs: Iterable[Lines]) -> Iterator[bytes]:
        opening, closing = self.document.opening, self.document.closing
        max_urls, max_bytes = self.max_urls, self.max_bytes
        # Kept in locals while the loop runs and stored back however it ends.
        count, size, newest = 0, len(opening) + len(closing), ""
        chunk = [opening]
        chunk_size = len(opening)
        try:
            for lines, lastmods in runs:
                if not lines:
                    continue
                # One encode per run: the lines of a run are joined first.
                data = "".join(lines).encode()
                if count + len(lines) > max_urls or size + len(data) > max_bytes:
                    taken = self.fitting(lines, max_urls - count, max_bytes - size)
                    self.cut = True
                    self.overflow = (lines[taken:], lastmods[taken:])
                    lines, lastmods = lines[:taken], lastmods[:taken]
                    data = "".join(lines).encode()
                count += len(lines)
                size += len(data)
                # "" sorts before every formatted lastmod.
                run_newest = max(filter(None, lastmods), default="")
                if run_newest > newest:
                    newest = run_newest
                chunk.append(data)
                chunk_size += len(data)
                if self.cut:
                    break
                if chunk_size >= CHUNK_BYTES:
                    # Handed out in pieces of about CHUNK_BYTES, however long the run.
                    data = b"".join(chunk)
                    last = len(data) - len(data) % CHUNK_BYTES
                    for start in range(0, last, CHUNK_BYTES):
                        yield data[start : start + CHUNK_BYTES]
                    chunk = [data[last:]]
                    chunk_size = len(data) - last
        finally:
            self.count, self.size, self.newest = count, size, newest or None
        # Only a complete document gets its closing tag: an exception above
        # ends the stream without it, so a client can tell it was cut short.
        chunk.append(closing)
        yield b"".join(chunk)

    @staticmethod
    def fitting(lines: list[str], urls: int, room: int) -> int:
        """How many of ``lines`` fit in ``urls`` more URLs and ``room`` more bytes."""
        taken = 0
        for line in lines[:urls]:
            room -= len(line.encode())
            if room < 0:
                break
            taken += 1
        return taken


def entry_lines(entries: Iterable[Entry], element: Callable[[Entry], str]) -> Lines:
    """The lines of ``entries`` as ``element`` writes them."""
    made = list(entries)
    return [element(entry) for entry in made], [entry.lastmod for entry in made]
