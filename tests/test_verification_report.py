"""The problems counted by section and reason, a few of each kept for the summary."""

from __future__ import annotations

from django_sitemapkit.verification.reasons import CANONICAL, NOT_FOUND, reason
from django_sitemapkit.verification.report import Tallies


def test_the_summary_by_section_then_kind_with_the_first_urls() -> None:
    tallies = Tallies(max_shown=1, several_sites=True)
    tallies.section("www", "posts").requested = 3
    tallies.add("www", "posts", "https://a.example/1/", reason(CANONICAL, "https://a.example/"))
    tallies.add("www", "posts", "https://a.example/2/", reason(NOT_FOUND, "404"))
    tallies.add("www", "posts", "https://a.example/3/", reason(NOT_FOUND, "404"))
    tallies.add("shop", "posts", "https://b.example/\x1b/", reason(NOT_FOUND, "404"))
    assert (tallies.requested, tallies.problems) == (3, 4)
    assert tallies.summary() == [
        "www: posts, not found (404): 2 URLs",
        "  https://a.example/2/  404",
        "  ... and 1 more",
        "www: posts, its canonical URL is another: 1 URL",
        "  https://a.example/1/  https://a.example/",
        "shop: posts, not found (404): 1 URL",
        "  https://b.example/\\x1b/  404",
    ]


def test_nothing_shown_is_still_counted() -> None:
    tallies = Tallies(max_shown=0, several_sites=False)
    tallies.add("default", "posts", "https://a.example/1/", reason(NOT_FOUND, "404"))
    assert tallies.summary() == ["posts, not found (404): 1 URL", "  ... and 1 more"]
