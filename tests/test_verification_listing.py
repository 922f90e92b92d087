"""The URLs a section lists, a page at a time, as the views list them; the sample."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource
from verified import articles

from django_sitemapkit.sites.hosts import default_site
from django_sitemapkit.verification.listing import DatabaseSection, Listed, Page, Sample

Sources = Callable[..., None]
BASE = "https://www.example.com"


class SmallPages(ArticleSource):
    limit = 2


class Translated(ArticleSource):
    i18n = True
    languages = ["en", "de"]
    alternates = True
    limit = 4


def every_page(first: int, urls: int) -> bool:
    return True


@pytest.mark.django_db
def test_a_section_page_by_page_with_its_positions() -> None:
    articles("a", "b", "c")
    section = DatabaseSection.of(SmallPages(), default_site())
    assert (section.section, section.urls) == ("articles", 3)
    assert list(section.pages(every_page)) == [
        Page(0, [Listed(f"{BASE}/articles/a/"), Listed(f"{BASE}/articles/b/")]),
        Page(2, [Listed(f"{BASE}/articles/c/")]),
    ]
    asked: list[tuple[int, int]] = []

    def second_only(first: int, urls: int) -> bool:
        asked.append((first, urls))
        return first > 0

    assert list(section.pages(second_only)) == [Page(2, [Listed(f"{BASE}/articles/c/")])]
    assert asked == [(0, 2), (2, 1)]


@pytest.mark.django_db
def test_a_row_that_makes_no_entry_is_skipped_as_the_views_skip_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A slug no URL pattern takes ("a/b" has a slash): no entry, logged.
    articles("a", "a/b", "c")
    section = DatabaseSection.of(ArticleSource(), default_site())
    pages = list(section.pages(every_page))
    assert pages == [Page(0, [Listed(f"{BASE}/articles/a/"), Listed(f"{BASE}/articles/c/")])]
    pk = Article.objects.get(slug="a/b").pk
    assert [record.getMessage() for record in caplog.records] == [
        f"Skipped pk={pk} of source 'articles': its URL does not reverse (Reverse for "
        "'article-detail' with keyword arguments '{'slug': 'a/b'}' not found. 1 pattern(s) "
        "tried: ['articles/(?P<slug>[^/]+)/\\\\Z'])."
    ]


@pytest.mark.django_db
def test_a_row_in_each_language_with_its_alternates(settings: Any) -> None:
    settings.LANGUAGES = [("en", "English"), ("de", "German")]
    articles("tea")
    section = DatabaseSection.of(Translated(), default_site())
    assert section.urls == 2
    alternates = (("en", f"{BASE}/articles/tea/"), ("de", f"{BASE}/articles/tea/"))
    (page,) = section.pages(every_page)
    assert page == Page(
        0,
        [Listed(f"{BASE}/articles/tea/", alternates), Listed(f"{BASE}/articles/tea/", alternates)],
    )


def test_a_static_section() -> None:
    section = DatabaseSection.of(PagesSource(), default_site())
    assert list(section.pages(every_page)) == [
        Page(0, [Listed(f"{BASE}/"), Listed(f"{BASE}/about/")])
    ]


@pytest.mark.parametrize(
    ("urls", "size", "positions"),
    [
        (10, 3, [0, 3, 6]),
        (10, 4, [0, 2, 5, 7]),
        (7, 7, [0, 1, 2, 3, 4, 5, 6]),
        (3, 5, [0, 1, 2]),
        (3, None, [0, 1, 2]),
        (1_000_000, 2, [0, 500_000]),
        (0, 3, []),
    ],
)
def test_a_sample_is_spread_evenly(urls: int, size: int | None, positions: list[int]) -> None:
    sample = Sample(urls, size)
    assert [position for position in range(urls) if position in sample] == positions
    assert sample.count == len(positions)


def test_a_sample_tells_which_pages_hold_its_positions() -> None:
    sample = Sample(100, 4)  # positions 0, 25, 50, 75
    pages = [(first, 10) for first in range(0, 100, 10)]
    assert [first for first, urls in pages if sample.touches(first, urls)] == [0, 20, 50, 70]
    assert 100 not in sample
    assert Sample(3, None).touches(90, 10)
