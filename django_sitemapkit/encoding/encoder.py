"""Template-free streaming encoder: ``<urlset>`` and ``<sitemapindex>`` bytes from entries.

Nothing here builds a tree or a template: each entry becomes one line of
UTF-8 bytes, lines are gathered into chunks of about ``CHUNK_BYTES`` and
yielded, and the byte count is kept so no document passes the protocol's
50 MiB cap. The extension elements inside a ``<url>`` are written by
:mod:`~django_sitemapkit.encoding.elements`, the escaping by
:mod:`~django_sitemapkit.encoding.escaping`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import cache
from typing import NamedTuple, Protocol

from django_sitemapkit.conf import MAX_BYTES, MAX_URLS
from django_sitemapkit.encoding.elements import EXTENSION_NAMESPACES, Extras, extension_elements
from django_sitemapkit.encoding.escaping import NEEDS_ESCAPE as NEEDS_ESCAPE
from django_sitemapkit.encoding.escaping import escape as escape

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'
CHUNK_BYTES = 64 * 1024


class Entry(NamedTuple):
    """One ``<url>`` (or ``<sitemap>``) with its values already validated and formatted."""

    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    extras: Extras | None = None


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


def optional_elements(changefreq: str | None, priority: str | None) -> str:
    """The end of a ``<url>`` line after ``<lastmod>``, in the schema's order."""
    text = "" if changefreq is None else "<changefreq>" + changefreq + "</changefreq>"
    if priority is not None:
        text += "<priority>" + priority + "</priority>"
    return text + "</url>\n"


def sitemap_element(entry: Entry) -> str:
    # Both values escaped here, whoever made the entry: an index is written from
    # a manifest read back, and from results a worker sent.
    lastmod = "" if entry.lastmod is None else f"<lastmod>{escape(entry.lastmod)}</lastmod>"
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


class KnownNewest(Sequence["str | None"]):
    """The lastmods of a run that know their newest already (the encoder needs only
    that), and give the others only when asked."""

    newest: str


#: The lines of a run of entries, and the ``lastmod`` of each.
Lines = tuple[list[str], Sequence["str | None"]]


def newest_of(lastmods: Sequence[str | None]) -> str:
    """The newest of a run's lastmods; "" (which sorts before every lastmod) for none."""
    if isinstance(lastmods, KnownNewest):
        return lastmods.newest
    return max(filter(None, lastmods), default="")


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
                run_newest = newest_of(lastmods)
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
