"""The sitemap as HTML, for people: the index and each page as a table.

Browsers are dropping XSLT, so instead of an ``<?xml-stylesheet?>`` on the
XML (which stays exactly what crawlers read), the same entries are written a
second time as a plain HTML document: one ``<tr>`` per entry, streamed like
the XML, every value escaped, and nothing loaded from anywhere (the one style
sheet is inline, and the ``Content-Security-Policy`` allows only it).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable, Iterator
from html import escape
from typing import NamedTuple

from django.conf import settings

from django_sitemapkit.encoding.encoder import CHUNK_BYTES, Entry

CONTENT_TYPE = "text/html; charset=utf-8"
URL_NAMESPACE = "sitemapkit_html"

STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:80rem;"
    "padding:0 1rem;color:#1a1a1a;background:#fff}"
    # A fixed layout: the browser sizes the columns from the first row instead
    # of measuring all 50,000, which is most of the time a long page takes.
    "table{border-collapse:collapse;width:100%;table-layout:fixed}"
    "caption{text-align:left;padding:.5rem 0;color:#555}"
    "th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;"
    "vertical-align:top}"
    "thead th{background:#f3f3f3;position:sticky;top:0}"
    "tbody th{font-weight:normal}"
    ".n{text-align:right;font-variant-numeric:tabular-nums}"
    "time{white-space:nowrap}"
    ".w5{width:5rem}.w6{width:6.5rem}.w14{width:14rem}.w15{width:15rem}"
    "a{color:#0b57d0;overflow-wrap:anywhere}"
)
# CSP level 2, "hash-source": the inline style is allowed by its digest, so the
# page may load nothing else at all (no font, script, image or frame).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    + "'; base-uri 'none'; form-action 'none'"
)

# (header, classes): the width a fixed layout needs (the URL takes the rest),
# and "n" for numbers. Classes, not style attributes, which the policy forbids.
Column = tuple[str, str]
PAGE_COLUMNS: tuple[Column, ...] = (
    ("URL", ""),
    ("Last modified", "w15"),
    ("Change frequency", "w6"),
    ("Priority", "w5 n"),
    ("Alternates", "w6 n"),
    ("Images", "w5 n"),
)
INDEX_COLUMNS: tuple[Column, ...] = (
    ("Section page", "w14"),
    ("URLs", "w6 n"),
    ("Last modified", "w15"),
    ("XML", ""),
)


class HtmlLayout(NamedTuple):
    """An HTML document for the encoder: what comes before and after the rows."""

    opening: bytes
    closing: bytes
    element: Callable[[Entry], str]


def document_start(title: str, intro: str, columns: Iterable[Column], caption: str) -> bytes:
    headers = "".join(
        f'<th scope="col" class="{classes}">{escape(name)}</th>'
        if classes
        else f'<th scope="col">{escape(name)}</th>'
        for name, classes in columns
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{escape(settings.LANGUAGE_CODE)}">\n'
        '<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n<h1>{escape(title)}</h1>\n{intro}\n"
        f"<table>\n<caption>{escape(caption)}</caption>\n"
        f"<thead><tr>{headers}</tr></thead>\n<tbody>\n"
    ).encode()


DOCUMENT_END = b"</tbody>\n</table>\n</main>\n</body>\n</html>\n"


def href(url: str, origin: str) -> str:
    """``url`` without ``origin`` (``scheme://host[:port]``, SITEMAPKIT_BASE_URL's) if it
    is on it, else as it is.

    These pages are for people: a link to the site's own page goes to the host
    that served this one, so the HTML sitemap works on runserver or a staging
    host too, where an absolute link would leave for production. The XML keeps
    absolute locations, which the protocol requires.

    A path starting with ``//`` keeps its origin: without it, the link would be a
    network-path reference (RFC 3986 section 4.2) to the host its first segment
    names. The location rule refuses such paths; what is written here does not
    depend on it.
    """
    rest = url[len(origin) :]
    if url.startswith(origin) and rest[:1] in ("/", "?", "#", "") and rest[:2] != "//":
        return rest if rest.startswith("/") else "/" + rest
    return url


def link(url: str, origin: str) -> str:
    """A link to ``url``, which it shows whole (the location the sitemap lists)."""
    return f'<a href="{escape(href(url, origin))}">{escape(url)}</a>'


def optional(text: str | None) -> str:
    return "" if text is None else escape(text)


def lastmod_cell(lastmod: str | None) -> str:
    if lastmod is None:
        return "<td></td>"
    return f'<td><time datetime="{lastmod}">{lastmod}</time></td>'


def url_rows(origin: str) -> Callable[[Entry], str]:
    """The element of a page's entries, its links site-relative on ``origin``."""

    def url_row(entry: Entry) -> str:
        """One entry: its link, its values, and how many alternates and images."""
        loc, lastmod, changefreq, priority, extras = entry
        alternates = images = 0
        if extras is not None:
            alternates, images = len(extras.alternates), len(extras.images)
        return (
            f'<tr><th scope="row">{link(loc, origin)}</th>{lastmod_cell(lastmod)}'
            f'<td>{optional(changefreq)}</td><td class="n">{optional(priority)}</td>'
            f'<td class="n">{alternates}</td><td class="n">{images}</td></tr>\n'
        )

    return url_row


def page_layout(section: str, page: int, index_url: str, origin: str) -> HtmlLayout:
    title = f"Sitemap: {section}, page {page}"
    intro = f'<p><a href="{escape(href(index_url, origin))}">All sections</a></p>'
    caption = f"The URLs of page {page} of section {section}"
    start = document_start(title, intro, PAGE_COLUMNS, caption)
    return HtmlLayout(start, DOCUMENT_END, url_rows(origin))


class IndexRow(NamedTuple):
    section: str
    page: int
    urls: int
    lastmod: str | None
    html_url: str
    xml_url: str


def index_document(rows: list[IndexRow], origin: str) -> Iterator[bytes]:
    """The index for people; its links site-relative on ``origin`` (see ``href()``)."""
    total = sum(row.urls for row in rows)
    intro = f"<p>{total:,} URLs in {len(rows):,} pages.</p>"
    yield document_start("Sitemap", intro, INDEX_COLUMNS, "Every page of every section")
    chunk: list[str] = []
    size = 0
    for row in rows:
        line = (
            f'<tr><th scope="row"><a href="{escape(href(row.html_url, origin))}">'
            f"{escape(row.section)}, page {row.page}</a></th>"
            f'<td class="n">{row.urls:,}</td>{lastmod_cell(row.lastmod)}'
            f"<td>{link(row.xml_url, origin)}</td></tr>\n"
        )
        chunk.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield "".join(chunk).encode()
            chunk, size = [], 0
    yield "".join(chunk).encode() + DOCUMENT_END
