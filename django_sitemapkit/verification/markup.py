"""What a response says about its own indexing: robots directives and canonical links,
in its headers and in the ``<head>`` of its HTML.

Read the way the search engines document them (Google's "Robots meta tag,
data-nosnippet, and X-Robots-Tag specifications", Bing's "Robots meta tags"):

- a directive list is comma-separated and case-insensitive; ``none`` means
  ``noindex, nofollow``;
- ``X-Robots-Tag`` may name a crawler before its directives
  (``googlebot: noindex``), which then apply to it alone, up to the next
  crawler named; a directive with a value (``max-snippet: 20``,
  ``unavailable_after: ...``) is no crawler's name;
- ``<meta name="robots">`` speaks to every crawler, ``<meta name="googlebot">``
  to one;
- the canonical URL is a ``<link rel="canonical">`` of the head, or a ``Link``
  header with ``rel="canonical"`` (RFC 8288 section 3).

Only what speaks to every crawler, or to a crawler that reads sitemaps.org
sitemaps (``SITEMAP_CRAWLERS``), counts: a ``noindex`` for another (an AI
crawler, say) keeps no search engine from the URL.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import NamedTuple

#: The crawlers that read sitemaps.org sitemaps, as meta names and X-Robots-Tag
#: prefixes call them (each engine's documentation, lowercase).
SITEMAP_CRAWLERS = frozenset({"googlebot", "bingbot", "msnbot", "yandex", "baiduspider"})
#: The meta name that speaks to every crawler.
EVERY_CRAWLER = "robots"
#: Directives that keep a page out of the index.
NOINDEX_DIRECTIVES = frozenset({"noindex", "none"})
#: Directives written ``name: value``, so that their name is no crawler's.
VALUED_DIRECTIVES = frozenset(
    {"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"}
)
# The elements of a document's head (HTML, "The head element"): any other start
# tag begins its body, where neither a robots meta tag nor a canonical link counts.
HEAD_ELEMENTS = frozenset(
    {"html", "head", "meta", "link", "title", "style", "script", "base", "noscript", "template"}
)
# A crawler's name as X-Robots-Tag writes it: one word (the product token of RFC 9110
# section 10.1.5), so that the halves of a date's "15:00:00" are none.
AGENT = re.compile(r"[a-z0-9_.-]+")
# Where a head surely ends: its end tag, or the body's start tag.
HEAD_END = re.compile(r"</head\s*>|<body[\s>/]", re.IGNORECASE)
#: The most characters of a header value a report repeats.
SHOWN = 200


def noindex_for(directives: str, crawler: str | None = None) -> str | None:
    """The crawler (``"*"`` for all) a directive list keeps from indexing, or ``None``;
    ``crawler`` is the one a meta tag names, ``None`` for a header, whose items may
    name theirs."""
    agent = crawler
    for item in directives.split(","):
        item = item.strip().lower()
        name, colon, rest = item.partition(":")
        name = name.strip()
        if colon and crawler is None and AGENT.fullmatch(name) and name not in VALUED_DIRECTIVES:
            # "googlebot: noindex": this item and the next ones are googlebot's.
            agent = name
            item = rest.strip()
        directive = item.partition(":")[0].strip()
        if directive in NOINDEX_DIRECTIVES and (agent is None or counts(agent)):
            return agent or "*"
    return None


def counts(agent: str) -> bool:
    return agent in (EVERY_CRAWLER, "*") or agent in SITEMAP_CRAWLERS


def canonical_links(header: str) -> list[str]:
    """The targets of a ``Link`` header's links whose ``rel`` includes ``canonical``
    (RFC 8288 section 3: ``<target>; param=value, <target>; ...``, a value a token or
    a quoted string, ``rel`` a space-separated list of relation types)."""
    found = []
    position, length = 0, len(header)
    while position < length:
        start = header.find("<", position)
        end = header.find(">", start + 1)
        if start < 0 or end < 0:
            break
        target = header[start + 1 : end]
        params, position = link_params(header, end + 1)
        if "canonical" in params.get("rel", "").lower().split():
            found.append(target.strip())
    return found


def link_params(header: str, position: int) -> tuple[dict[str, str], int]:
    """The parameters of one link from ``position`` (just after its ``>``), up to the
    comma that ends it outside a quoted string; and where the next link starts."""
    params: dict[str, str] = {}
    text: list[str] = []
    quoted = escaped = False
    for index in range(position, len(header)):
        character = header[index]
        if escaped:
            escaped = False
        elif quoted and character == "\\":
            escaped = True
            continue
        elif character == '"':
            quoted = not quoted
            continue
        elif not quoted and character in ";,":
            add_param(params, "".join(text))
            text.clear()
            if character == ",":
                return params, index + 1
            continue
        text.append(character)
    add_param(params, "".join(text))
    return params, len(header)


def add_param(params: dict[str, str], text: str) -> None:
    name, _, value = text.partition("=")
    name = name.strip().lower()
    # RFC 8288 section 3.3: only the first "rel" of a link counts.
    if name and name not in params:
        params[name] = value.strip()


class Head(NamedTuple):
    """What the head of an HTML document says: each robots meta tag that keeps its
    page out of the index (as written), and each canonical link's target."""

    noindex: list[str]
    canonicals: list[str]


class HeadParser(HTMLParser):
    """The robots meta tags and canonical links of a head; ``done`` at its end."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.head = Head([], [])
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        if tag not in HEAD_ELEMENTS:
            self.done = True
            return
        values = {name: value or "" for name, value in reversed(attrs)}
        if tag == "meta":
            name = values.get("name", "").strip().lower()
            content = values.get("content", "")
            if counts(name) and noindex_for(content, name) is not None:
                self.head.noindex.append(f'<meta name="{name}" content="{content[:SHOWN]}">')
        elif tag == "link" and "canonical" in values.get("rel", "").lower().split():
            self.head.canonicals.append(values.get("href", "").strip())

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.done = True


def read_head(chunks: Iterator[bytes], charset: str | None, budget: int) -> Head:
    """The head of an HTML body read from ``chunks``, up to its end or ``budget`` bytes;
    bytes that are not of ``charset`` (UTF-8 when the response names none, or one
    Python does not know) are replaced."""
    try:
        decoder = codecs.getincrementaldecoder(charset or "utf-8")(errors="replace")
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    parser = HeadParser()
    for chunk in chunks:
        chunk = chunk[:budget]
        budget -= len(chunk)
        # Incremental: a character split between two chunks is decoded whole.
        text = decoder.decode(chunk, final=budget == 0)
        # The parser reads all it is fed: the body, most of a page, is not fed.
        end = HEAD_END.search(text)
        parser.feed(text if end is None else text[: end.end()])
        if end is not None or parser.done or budget == 0:
            break
    parser.close()
    return parser.head
