"""A ``<urlset>`` read back as its bytes stream in, refusing what no build writes."""

from __future__ import annotations

import io
import re

import pytest

from django_sitemapkit.encoding.reading import ReadUrl, read_urlset

URLSET = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml">'


def streamed(document: str, read_size: int = 64 * 1024) -> list[ReadUrl]:
    file = io.BufferedReader(io.BytesIO(document.encode()), buffer_size=read_size)
    return read_urlset(file, "sitemap-articles-1.xml")


def test_each_loc_with_its_lastmod_and_alternates() -> None:
    document = (
        f"<?xml version='1.0' encoding='UTF-8'?>\n{URLSET}{XHTML}\n"
        "<url><loc> https://a.example/en/ </loc><lastmod>2025-01-01</lastmod>"
        '<xhtml:link rel="alternate" hreflang="en" href="https://a.example/en/"/>'
        '<xhtml:link rel="alternate" hreflang="de" href="https://a.example/de/"/>'
        '<xhtml:link rel="stylesheet" href="https://a.example/x.css"/></url>\n'
        "<url><loc>https://a.example/?a=1&amp;b=2</loc></url>\n"
        # No <loc>: no URL.
        "<url><lastmod>2025-01-01</lastmod></url>\n"
        "</urlset>\n"
    )
    expected = [
        ReadUrl(
            "https://a.example/en/",
            "2025-01-01",
            (("en", "https://a.example/en/"), ("de", "https://a.example/de/")),
        ),
        ReadUrl("https://a.example/?a=1&b=2", None),
    ]
    assert streamed(document) == expected
    assert read_urlset(document.encode(), "sitemap-articles-1.xml") == expected


def test_a_stream_is_read_a_block_at_a_time() -> None:
    urls = "".join(f"<url><loc>https://a.example/{n}/</loc></url>" for n in range(1000))
    assert len(streamed(f"{URLSET}>{urls}</urlset>", read_size=7)) == 1000


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            '<!DOCTYPE urlset [<!ENTITY a "aaaa">]><urlset/>',
            "sitemap-articles-1.xml has a document type declaration, which is refused.",
        ),
        (
            "<sitemapindex/>",
            "sitemap-articles-1.xml is not a <urlset> document: its root is 'sitemapindex'.",
        ),
        (
            '<urlset xmlns="urn:other"/>',
            "sitemap-articles-1.xml is not a <urlset> document: its root is '{urn:other}urlset'.",
        ),
        (
            f"{URLSET}><url>",
            "sitemap-articles-1.xml is not well-formed XML: no element found: line 1, column 66.",
        ),
    ],
)
def test_what_no_build_writes_is_refused(document: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        streamed(document)


def test_the_limits_of_a_stream() -> None:
    urls = "<url><loc>https://a.example/</loc></url>" * 3
    file = io.BytesIO(f"{URLSET}>{urls}</urlset>".encode())
    with pytest.raises(ValueError, match=r"^p\.xml lists more than 2 URLs\.$"):
        read_urlset(file, "p.xml", most_urls=2)
    file = io.BytesIO(f"{URLSET}>{urls}</urlset>".encode())
    with pytest.raises(ValueError, match=r"^p\.xml is larger than 100 bytes\.$"):
        read_urlset(file, "p.xml", most_bytes=100)
