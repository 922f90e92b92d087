"""Hreflang alternates listed back, checked on disk whatever the number of URLs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from django_sitemapkit.verification.hreflang import BATCH, Reciprocity
from django_sitemapkit.verification.listing import Listed
from django_sitemapkit.verification.reasons import HREFLANG, KINDS, Reason

EN, DE, FR = (
    "https://www.example.com/tea/",
    "https://www.example.de/tee/",
    "https://fr.example/the/",
)


@pytest.fixture
def reciprocity() -> Iterator[Reciprocity]:
    checked = Reciprocity()
    yield checked
    checked.close()


def listed(loc: str, **alternates: str) -> Listed:
    return Listed(loc, tuple(alternates.items()))


def problem(site: str, url: str, detail: str) -> tuple[str, str, str, Reason]:
    return (site, "articles", url, Reason(HREFLANG, KINDS[HREFLANG], detail))


def test_alternates_listed_back_are_no_problem(reciprocity: Reciprocity) -> None:
    reciprocity.add("www", "articles", listed(EN, en=EN, de=DE))
    reciprocity.add("de", "articles", listed(DE, en=EN, de=DE))
    reciprocity.add("www", "articles", Listed("https://www.example.com/alone/"))
    assert list(reciprocity.problems(every_url_read=True)) == []


def test_each_alternate_not_listed_back_in_one_reason(reciprocity: Reciprocity) -> None:
    reciprocity.add("www", "articles", listed(EN, en=EN, de=DE, fr=FR))
    reciprocity.add("de", "articles", listed(DE, de=DE, en=EN, fr=FR))
    reciprocity.add("fr", "articles", listed(FR, fr=FR))
    assert list(reciprocity.problems(every_url_read=True)) == [
        problem("www", EN, f"fr {FR} does not list it back"),
        problem("de", DE, f"fr {FR} does not list it back"),
    ]


def test_two_alternates_of_one_url_in_one_reason(reciprocity: Reciprocity) -> None:
    reciprocity.add("www", "articles", listed(EN, en=EN, de=DE, fr=FR))
    reciprocity.add("de", "articles", listed(DE, de=DE))
    reciprocity.add("fr", "articles", listed(FR, fr=FR))
    assert list(reciprocity.problems(every_url_read=True)) == [
        problem("www", EN, f"de {DE} does not list it back; fr {FR} does not list it back"),
    ]


def test_an_alternate_listed_nowhere(reciprocity: Reciprocity) -> None:
    reciprocity.add("www", "articles", listed(EN, en=EN, de=DE, fr=FR))
    reciprocity.add("fr", "articles", listed(FR, fr=FR, en=EN))
    assert list(reciprocity.problems(every_url_read=True)) == [
        problem("www", EN, f"de {DE} is not in the sitemap"),
    ]
    assert reciprocity.unchecked == 0


def test_an_alternate_on_a_page_not_read_is_unchecked(reciprocity: Reciprocity) -> None:
    reciprocity.add("www", "articles", listed(EN, en=EN, de=DE, fr=FR))
    reciprocity.add("fr", "articles", listed(FR, fr=FR))
    assert list(reciprocity.problems(every_url_read=False)) == [
        problem("www", EN, f"fr {FR} does not list it back"),
    ]
    assert reciprocity.unchecked == 1


def test_the_urls_go_to_disk_in_batches(reciprocity: Reciprocity) -> None:
    count = BATCH * 2 + 10
    for number in range(count):
        en = f"https://www.example.com/{number}/"
        de = f"https://www.example.de/{number}/"
        reciprocity.add("www", "articles", listed(en, en=en, de=de))
        # Never more than a batch in memory.
        assert len(reciprocity.listed) < BATCH
        if number != 7:
            reciprocity.add("de", "articles", listed(de, en=en, de=de))
    assert list(reciprocity.problems(every_url_read=True)) == [
        problem(
            "www",
            "https://www.example.com/7/",
            "de https://www.example.de/7/ is not in the sitemap",
        ),
    ]
