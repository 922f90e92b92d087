"""The HTML sitemap's pages read back as a visitor sees them: the index's sections
and a page's rows, parsed with lxml (tests/test_html*.py, tests/test_browser.py)."""

from __future__ import annotations

from typing import NamedTuple

from lxml import html as lxml_html
from lxml.html import HtmlElement


class Link(NamedTuple):
    text: str
    href: str


class Listed(NamedTuple):
    """One URL of a page: its link, and its date (``<time datetime>``, the text)."""

    link: Link
    lastmod: tuple[str, str] | None


class IndexedSection(NamedTuple):
    heading: str
    summary: str
    pages: list[Link]


def document(body: bytes | str) -> HtmlElement:
    """A page as a browser reads it, in the UTF-8 its ``Content-Type`` names (a site's
    own base template may have no ``<meta charset>``)."""
    return lxml_html.document_fromstring(body.decode() if isinstance(body, bytes) else body)


def found(node: HtmlElement, path: str) -> list[HtmlElement]:
    matches = node.xpath(path)
    assert isinstance(matches, list)
    return [item for item in matches if isinstance(item, HtmlElement)]


def text(node: HtmlElement) -> str:
    content = node.text_content()
    assert isinstance(content, str)
    return " ".join(content.split())


def link(anchor: HtmlElement) -> Link:
    return Link(text(anchor), anchor.get("href") or "")


def index_sections(page: HtmlElement) -> list[IndexedSection]:
    return [
        IndexedSection(
            text(found(section, "h2")[0]),
            text(found(section, "p")[0]),
            [link(anchor) for anchor in found(section, "ul/li/a")],
        )
        for section in found(page, "//section[h2]")
    ]


def page_rows(page: HtmlElement) -> list[Listed]:
    rows = []
    for item in found(page, "//ul[@class='sitemap-urls']/li"):
        (anchor,) = found(item, "a")
        times = found(item, "time")
        lastmod = None if not times else (times[0].get("datetime") or "", text(times[0]))
        rows.append(Listed(link(anchor), lastmod))
    return rows


def pager(page: HtmlElement) -> dict[str, str]:
    """The page's previous and next links, by their ``rel``."""
    return {a.get("rel") or "": a.get("href") or "" for a in found(page, "//nav/a[@rel]")}
