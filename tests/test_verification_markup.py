"""Robots directives and canonical links, read as the search engines document them."""

from __future__ import annotations

import pytest

from django_sitemapkit.verification.markup import Head, canonical_links, noindex_for, read_head


@pytest.mark.parametrize(
    ("directives", "crawler"),
    [
        ("noindex", "*"),
        ("NoIndex", "*"),
        ("nofollow, noindex", "*"),
        ("none", "*"),
        ("googlebot: noindex", "googlebot"),
        ("googlebot: nofollow, bingbot: noarchive, noindex", "bingbot"),
        ("max-snippet: 20, noindex", "*"),
        # An RFC 850 date holds a comma: its halves are no directive.
        ("unavailable_after: Friday, 25-Jun-2010 15:00:00 GMT, noindex", "*"),
        ("nofollow", None),
        ("index, follow", None),
        ("max-image-preview: large", None),
        # Only the crawlers that read sitemaps count.
        ("gptbot: noindex", None),
        ("otherbot: noindex, nofollow", None),
        ("", None),
    ],
)
def test_noindex_in_a_header(directives: str, crawler: str | None) -> None:
    assert noindex_for(directives) == crawler


def test_a_meta_tag_names_its_crawler_and_no_prefix() -> None:
    assert noindex_for("noindex", "googlebot") == "googlebot"
    # In a meta tag, "googlebot:" is no crawler's prefix.
    assert noindex_for("googlebot: noindex", "robots") is None


@pytest.mark.parametrize(
    ("header", "targets"),
    [
        ('<https://example.com/a>; rel="canonical"', ["https://example.com/a"]),
        ("</a>; rel=canonical", ["/a"]),
        ('<https://example.com/a>; rel="Canonical alternate"', ["https://example.com/a"]),
        ('<https://example.com/de>; rel="alternate"; hreflang="de"', []),
        (
            '</style.css>; rel="preload"; title="a, b; c", </b>; rel="canonical"',
            ["/b"],
        ),
        # RFC 8288 section 3.3: a link's second rel is ignored.
        ('</a>; rel="alternate"; rel="canonical"', []),
        ('</a>; title="a \\"quoted\\" ,word"; rel="canonical"', ["/a"]),
        ("no link at all", []),
        ("<unclosed", []),
    ],
)
def test_canonical_links_of_a_link_header(header: str, targets: list[str]) -> None:
    assert canonical_links(header) == targets


def head(*chunks: bytes, charset: str | None = "utf-8", budget: int = 1 << 20) -> Head:
    return read_head(iter(chunks), charset, budget)


def test_a_head_with_robots_tags_and_a_canonical_link() -> None:
    document = (
        b"<!doctype html><html><head><title>T</title>"
        b'<meta name="ROBOTS" content="NOINDEX">'
        b'<meta name="googlebot" content="none">'
        b'<meta name="gptbot" content="noindex">'
        b'<meta name="viewport" content="noindex">'
        b'<link rel="stylesheet canonical" href=" /a ">'
        b"</head><body>"
        b'<meta name="robots" content="noindex"><link rel="canonical" href="/b">'
    )
    assert head(document) == Head(
        ['<meta name="robots" content="NOINDEX">', '<meta name="googlebot" content="none">'],
        ["/a"],
    )


def test_the_body_starts_where_the_head_cannot_go_on() -> None:
    # No </head>, no <body>: a <div> starts the body (HTML's "in head" mode).
    document = b'<title>T</title><div></div><meta name="robots" content="noindex">'
    assert head(document) == Head([], [])


def test_a_character_split_between_chunks_is_read_whole() -> None:
    content = '<meta name="robots" content="noindex, caf\u00e9">'.encode()
    split = content.index(b"\xc3") + 1
    assert head(content[:split], content[split:]) == Head(
        ['<meta name="robots" content="noindex, caf\u00e9">'], []
    )


def test_the_charset_of_the_response_is_used() -> None:
    content = '<meta name="robots" content="noindex, \u00e9t\u00e9">'.encode("latin-1")
    assert head(content, charset="latin-1").noindex == [
        '<meta name="robots" content="noindex, \u00e9t\u00e9">'
    ]
    # An unknown charset reads as UTF-8, its bad bytes replaced.
    assert head(content, charset="no-such-charset").noindex == [
        '<meta name="robots" content="noindex, \ufffdt\ufffd">'
    ]


def test_no_more_than_the_budget_is_read() -> None:
    document = b"<head>" + b" " * 100 + b'<meta name="robots" content="noindex">'
    assert head(document, budget=100) == Head([], [])
    assert head(document, budget=len(document)).noindex == [
        '<meta name="robots" content="noindex">'
    ]
