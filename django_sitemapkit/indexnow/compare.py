"""What changed between two versions of a site's ``<urlset>`` documents: the URLs to
tell IndexNow about, each with the state it changed to."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import IO
from xml.parsers import expat

from django_sitemapkit.encoding.encoder import NAMESPACE

#: The state of a URL no longer listed.
REMOVED = "removed"
# expat joins a namespace and a local name with this separator.
URLSET, URL, LOC, LASTMOD = (f"{NAMESPACE} {name}" for name in ("urlset", "url", "loc", "lastmod"))
READ_SIZE = 64 * 1024


def changes(old: Iterable[bytes | IO[bytes]], new: Iterable[bytes | IO[bytes]]) -> dict[str, str]:
    """The URLs of ``new`` that ``old`` does not list, or lists with an older
    ``<lastmod>`` (or none, where ``new`` has one), and the URLs of ``old`` that
    ``new`` does not list; sorted by URL.

    Each maps to its state: its lastmod, ``""`` for a new URL without one, or
    ``"removed"``. ``old`` and ``new`` are the previous and the new versions of
    the documents that changed (a document written for the first time has no
    previous version, one removed no new one): a URL that moved from a changed
    document to an unchanged one would read as removed, so every changed
    document goes in, on both sides.

    Raises ``ValueError`` for a document that is not a well-formed ``<urlset>``,
    or that has a document type declaration (whose entities could make a few
    bytes expand to gigabytes: the app never writes one).
    """
    before, after = listed(old), listed(new)
    found = {}
    for url, lastmod in after.items():
        if url not in before:
            found[url] = lastmod or ""
        elif lastmod is not None and is_newer(lastmod, before[url]):
            found[url] = lastmod
    for url in before.keys() - after.keys():
        found[url] = REMOVED
    return dict(sorted(found.items()))


def listed(documents: Iterable[bytes | IO[bytes]]) -> dict[str, str | None]:
    """Every ``<loc>`` of the documents and its newest ``<lastmod>``."""
    urls: dict[str, str | None] = {}
    for number, document in enumerate(documents, 1):
        name = getattr(document, "name", None) or f"document {number}"
        for url, lastmod in parsed(document, str(name)):
            if url not in urls or (lastmod is not None and is_newer(lastmod, urls[url])):
                urls[url] = lastmod
    return urls


def parsed(document: bytes | IO[bytes], name: str) -> list[tuple[str, str | None]]:
    """The ``(loc, lastmod)`` of each ``<url>``, read as the bytes stream in."""
    entries: list[tuple[str, str | None]] = []
    path: list[str] = []
    text: list[str] = []
    values: dict[str, str] = {}

    def start(tag: str, attributes: object) -> None:
        if not path and tag != URLSET:
            root = "{" + tag.replace(" ", "}", 1) if " " in tag else tag
            raise ValueError(f"{name} is not a <urlset> document: its root is {root!r}.")
        path.append(tag)
        text.clear()

    def end(tag: str) -> None:
        path.pop()
        if path[1:] == [URL] and tag in (LOC, LASTMOD):
            values[tag] = "".join(text).strip()
        elif path == [URLSET] and tag == URL:
            if LOC in values:
                entries.append((values[LOC], values.get(LASTMOD)))
            values.clear()

    def refuse(*args: object) -> None:
        raise ValueError(f"{name} has a document type declaration, which is refused.")

    parser = expat.ParserCreate(namespace_separator=" ")
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text.append
    parser.StartDoctypeDeclHandler = refuse
    try:
        if isinstance(document, bytes):
            parser.Parse(document, True)
        else:
            while chunk := document.read(READ_SIZE):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        raise ValueError(f"{name} is not well-formed XML: {exc}.") from exc
    return entries


def is_newer(lastmod: str, than: str | None) -> bool:
    """Whether ``lastmod`` is later than ``than`` (a date counting as midnight UTC, as
    the encoder writes it); where either is no W3C datetime, whether they differ."""
    if than is None:
        return True
    this, other = instant(lastmod), instant(than)
    if this is None or other is None:
        return lastmod != than
    return this > other


def instant(value: str) -> dt.datetime | None:
    if value.endswith("Z"):  # which Python 3.10's fromisoformat() does not read
        value = value[:-1] + "+00:00"
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=dt.timezone.utc)
