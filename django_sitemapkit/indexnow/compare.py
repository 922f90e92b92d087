"""What changed between two versions of a site's ``<urlset>`` documents: the URLs
added, changed (a newer ``<lastmod>``) and removed. The one rule of what a change
is, for what IndexNow is told (``changes()``) and for a build's report and its
``--max-removed`` guard (``compare()``, read by ``build/changes.py``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import IO, NamedTuple

from django_sitemapkit.encoding.reading import read_urlset

#: The state of a URL no longer listed.
REMOVED = "removed"


#: What a URL's listing did between the two versions (``Change.kind``).
ADDED, CHANGED = "added", "changed"
# Where each version's values start in a URL's listing (``compare()``).
OLD, NEW = 0, 2
#: A document, and the name messages and ``Change.document`` give it.
Document = bytes | IO[bytes]
Named = tuple[str, Document]


class Change(NamedTuple):
    """One URL that ``compare()`` found added, changed or removed (a tuple: a change of
    a million URLs makes a million of them)."""

    url: str
    #: ``ADDED``, ``CHANGED`` or ``REMOVED``.
    kind: str
    #: Its ``<lastmod>`` in the new documents (in the old ones for a removed URL).
    lastmod: str | None
    #: The name of the document that lists it (the old one for a removed URL).
    document: str

    @property
    def state(self) -> str:
        """What IndexNow is told of it: its lastmod, ``""`` for none, or ``"removed"``."""
        return REMOVED if self.kind == REMOVED else self.lastmod or ""


def changes(old: Iterable[Document], new: Iterable[Document]) -> dict[str, str]:
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
    return states(compare(named(old), named(new)))


def states(found: Iterable[Change]) -> dict[str, str]:
    """Each change's URL and state, sorted by URL: what IndexNow is told."""
    return dict(sorted((change.url, change.state) for change in found))


def named(documents: Iterable[Document]) -> Iterator[Named]:
    """Each document with its file's name, or its place among them."""
    for number, document in enumerate(documents, 1):
        yield str(getattr(document, "name", None) or f"document {number}"), document


def compare(old: Iterable[Named], new: Iterable[Named]) -> Iterator[Change]:
    """What ``changes()`` finds, a URL at a time, with the document that lists it: in
    the order the documents list them, the old ones first.

    Both versions are read into one map before the first change is given, each
    URL in it once whichever versions list it: a change of a million URLs is
    held once, never in two copies (one a version). Raises as ``changes()`` does.
    """
    # Each URL's [old lastmod, old document, new lastmod, new document]: a version's
    # newest lastmod of the URL, and the first of its documents that lists it
    # (None: the version does not list it).
    urls: dict[str, list[str | None]] = {}
    for side, documents in ((OLD, old), (NEW, new)):
        for name, document in documents:
            for url, lastmod in parsed(document, name):
                listing = urls.get(url)
                if listing is None:
                    listing = urls[url] = [None, None, None, None]
                if listing[side + 1] is None:
                    listing[side], listing[side + 1] = lastmod, name
                elif lastmod is not None and is_newer(lastmod, listing[side]):
                    listing[side] = lastmod
    for url, (was, was_in, now, now_in) in urls.items():
        if now_in is None:
            assert was_in is not None
            yield Change(url, REMOVED, was, was_in)
        elif was_in is None:
            yield Change(url, ADDED, now, now_in)
        elif now is not None and is_newer(now, was):
            yield Change(url, CHANGED, now, now_in)


def parsed(document: bytes | IO[bytes], name: str) -> list[tuple[str, str | None]]:
    """The ``(loc, lastmod)`` of each ``<url>``, read as the bytes stream in."""
    return [(url.loc, url.lastmod) for url in read_urlset(document, name)]


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
