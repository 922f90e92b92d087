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
    UnreadableSet,
    built_sections,
    built_set,
    page_urls,
)

URLSET = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '


def test_a_page_file_within_the_protocols_limits() -> None:
    urls = "".join(f"<url><loc>https://a.example/{n}/</loc></url>" for n in range(3))
    assert page_urls(io.BytesIO(f"{URLSET}>{urls}</urlset>".encode()), "p.xml") == [
        Listed(f"https://a.example/{n}/") for n in range(3)
    ]
    too_many = f"{URLSET}>" + "<url><loc>https://a.example/</loc></url>" * (MAX_URLS + 1)
    message = "p.xml lists more than 50,000 URLs."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        page_urls(io.BytesIO(too_many.encode()), "p.xml")
    # Comments are no URLs: a file of them grows past 50 MiB without one.
    comment = b"<!--" + b" " * 65_529 + b"-->"
    too_large = URLSET.encode() + b">" + comment * (MAX_BYTES // len(comment) + 2)
    message = "p.xml is larger than 52,428,800 bytes."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        page_urls(io.BytesIO(too_large), "p.xml")


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
