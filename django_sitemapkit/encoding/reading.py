"""A ``<urlset>`` read back, for those who read what was written: IndexNow's comparison
of two versions (``indexnow/compare.py``) and ``verify_sitemaps --built``; and a
``<sitemapindex>``'s locations, for ``verify_sitemaps``' requests of the documents.

Read as its bytes stream in, by expat, never as a tree: each ``<url>``'s
``<loc>``, ``<lastmod>`` and ``xhtml:link`` alternates. A document type
declaration is refused (its entities could make a few bytes expand to
gigabytes: the app never writes one), and so is a root other than
``<urlset>``, more than ``most_urls`` URLs, and a stream of more than
``most_bytes`` bytes (read ``READ_SIZE`` bytes at a time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, NamedTuple
from xml.parsers import expat

from django_sitemapkit.encoding.elements import EXTENSION_NAMESPACES
from django_sitemapkit.encoding.encoder import NAMESPACE

# expat joins a namespace and a local name with this separator.
URLSET, URL, LOC, LASTMOD = (f"{NAMESPACE} {name}" for name in ("urlset", "url", "loc", "lastmod"))
SITEMAPINDEX, SITEMAP = (f"{NAMESPACE} {name}" for name in ("sitemapindex", "sitemap"))
XHTML_LINK = f"{EXTENSION_NAMESPACES['xhtml']} link"
READ_SIZE = 64 * 1024


class ReadUrl(NamedTuple):
    """One ``<url>`` as written: its location, lastmod and hreflang alternates."""

    loc: str
    lastmod: str | None
    #: ``(hreflang, href)`` of each ``xhtml:link rel="alternate"``.
    alternates: tuple[tuple[str, str], ...] = ()


def read_urlset(
    document: bytes | IO[bytes],
    name: str,
    *,
    most_urls: int | None = None,
    most_bytes: int | None = None,
) -> list[ReadUrl]:
    """Each ``<url>`` of ``document`` that has a ``<loc>``, in order; ``ValueError``
    (naming the document ``name``) for anything no build writes."""
    urls: list[ReadUrl] = []
    path: list[str] = []
    text: list[str] = []
    alternates: list[tuple[str, str]] = []
    values: dict[str, str] = {}

    def start(tag: str, attributes: dict[str, str]) -> None:
        if not path and tag != URLSET:
            root = "{" + tag.replace(" ", "}", 1) if " " in tag else tag
            raise ValueError(f"{name} is not a <urlset> document: its root is {root!r}.")
        if tag == XHTML_LINK and path[1:] == [URL] and attributes.get("rel") == "alternate":
            alternates.append((attributes.get("hreflang", ""), attributes.get("href", "")))
        path.append(tag)
        text.clear()

    def end(tag: str) -> None:
        path.pop()
        if path[1:] == [URL] and tag in (LOC, LASTMOD):
            values[tag] = "".join(text).strip()
        elif path == [URLSET] and tag == URL:
            if LOC in values:
                urls.append(ReadUrl(values[LOC], values.get(LASTMOD), tuple(alternates)))
            values.clear()
            alternates.clear()
            if most_urls is not None and len(urls) > most_urls:
                raise ValueError(f"{name} lists more than {most_urls:,} URLs.")

    parse(document, name, most_bytes, start, end, text)
    return urls


def read_index(document: bytes | IO[bytes], name: str, *, most_bytes: int) -> list[str]:
    """The ``<loc>`` of each ``<sitemap>`` of a ``<sitemapindex>``, in order; ``ValueError``
    (naming the document ``name``) for another root, a document type declaration,
    XML that is not well-formed, or more than ``most_bytes``."""
    locs: list[str] = []
    path: list[str] = []
    text: list[str] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        if not path and tag != SITEMAPINDEX:
            root = "{" + tag.replace(" ", "}", 1) if " " in tag else tag
            raise ValueError(f"{name} is not a <sitemapindex> document: its root is {root!r}.")
        path.append(tag)
        text.clear()

    def end(tag: str) -> None:
        path.pop()
        if path == [SITEMAPINDEX, SITEMAP] and tag == LOC:
            locs.append("".join(text).strip())

    parse(document, name, most_bytes, start, end, text)
    return locs


def parse(
    document: bytes | IO[bytes],
    name: str,
    most_bytes: int | None,
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None],
    text: list[str],
) -> None:
    """Feed ``document`` to an expat parser calling ``start`` and ``end``, its text
    into ``text``; a document type declaration or XML that is not well-formed is a
    ``ValueError`` naming ``name``."""

    def refuse(*args: object) -> None:
        raise ValueError(f"{name} has a document type declaration, which is refused.")

    parser = expat.ParserCreate(namespace_separator=" ")
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text.append
    parser.StartDoctypeDeclHandler = refuse
    try:
        fed(parser, document, name, most_bytes)
    except expat.ExpatError as exc:
        raise ValueError(f"{name} is not well-formed XML: {exc}.") from exc


def fed(
    parser: expat.XMLParserType, document: bytes | IO[bytes], name: str, most_bytes: int | None
) -> None:
    """``document`` given to ``parser`` whole, or a stream ``READ_SIZE`` bytes at a time
    up to ``most_bytes``."""
    if isinstance(document, bytes):
        parser.Parse(document, True)
        return
    read = 0
    while chunk := document.read(READ_SIZE):
        read += len(chunk)
        if most_bytes is not None and read > most_bytes:
            raise ValueError(f"{name} is larger than {most_bytes:,} bytes.")
        parser.Parse(chunk, False)
    parser.Parse(b"", True)
