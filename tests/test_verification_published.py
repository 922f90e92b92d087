"""A built set's URLs: its page files parsed a block at a time, nothing trusted."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from testapp.sitemaps import ArticleSource
from verified import articles

from django_sitemapkit.conf import MAX_BYTES, MAX_URLS
from django_sitemapkit.names import MANIFEST_FILENAME
from django_sitemapkit.sites.hosts import default_site
from django_sitemapkit.verification.listing import Listed, Page
from django_sitemapkit.verification.published import (
    READ_SIZE,
    UnreadableSet,
    built_sections,
    built_set,
    page_urls,
)

URLSET = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml">'


def parsed(document: str | bytes, read_size: int = READ_SIZE) -> list[Listed]:
    data = document.encode() if isinstance(document, str) else document
    file = io.BufferedReader(io.BytesIO(data), buffer_size=read_size)
    return page_urls(file, "sitemap-articles-1.xml")


def test_each_loc_with_its_alternates() -> None:
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
    assert parsed(document) == [
        Listed(
            "https://a.example/en/",
            (("en", "https://a.example/en/"), ("de", "https://a.example/de/")),
        ),
        Listed("https://a.example/?a=1&b=2"),
    ]


def test_read_a_block_at_a_time() -> None:
    urls = "".join(f"<url><loc>https://a.example/{n}/</loc></url>" for n in range(1000))
    assert len(parsed(f"{URLSET}>{urls}</urlset>", read_size=7)) == 1000


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            '<!DOCTYPE urlset [<!ENTITY a "aaaa">]><urlset/>',
            "sitemap-articles-1.xml has a document type declaration, which is refused",
        ),
        ("<sitemapindex/>", "sitemap-articles-1.xml is not a <urlset> document"),
        ("<urlset>", "sitemap-articles-1.xml is not a <urlset> document"),
        (
            f"{URLSET}><url>",
            "sitemap-articles-1.xml is not well-formed XML: no element found: line 1, column 66",
        ),
        (
            f"{URLSET}>" + "<url><loc>https://a.example/</loc></url>" * (MAX_URLS + 1),
            "sitemap-articles-1.xml lists more than 50,000 URLs",
        ),
    ],
)
def test_what_no_build_writes_is_refused(document: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parsed(document)


def test_no_more_than_the_protocols_bytes_are_read() -> None:
    # Comments are no URLs: a file of them grows past 50 MiB without one.
    comment = b"<!--" + b" " * (READ_SIZE - 7) + b"-->"
    document = URLSET.encode() + b">" + comment * (MAX_BYTES // len(comment) + 2)
    message = "sitemap-articles-1.xml is larger than 52,428,800 bytes"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parsed(document)


@pytest.mark.django_db
def test_the_sections_of_a_built_set(sources: Callable[..., None], out: Path) -> None:
    sources(ArticleSource)
    articles("a", "b")
    call_command("build_sitemaps", output=str(out), verbosity=0)
    site = default_site()
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(out)):
        (section,) = built_sections(site, *built_set(site))
    assert (section.section, section.urls, [file.name for file in section.files]) == (
        "articles",
        2,
        ["sitemap-articles-1.xml"],
    )
    assert list(section.pages(lambda first, urls: True)) == [
        Page(
            0,
            [
                Listed("https://www.example.com/articles/a/"),
                Listed("https://www.example.com/articles/b/"),
            ],
        )
    ]
    (out / MANIFEST_FILENAME).write_bytes(b"[" * 100_000)
    with (
        override_settings(SITEMAPKIT_OUTPUT_DIR=str(out)),
        pytest.raises(UnreadableSet, match=r"\(RecursionError: "),
    ):
        built_set(site)
