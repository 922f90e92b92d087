"""A page a view could not answer is left out of the served index until its
section's rows change (sources/unanswered.py, views/database.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from factories import bulk_articles
from sitemap_xml import fetch, parse_index
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
BASE = "https://www.example.com/"


class TwoAPage(ArticleSource):
    """A row whose slug starts with "off" gets a location on another host."""

    limit = 2

    def location(self, row: Any) -> str:
        if row["slug"].startswith("off"):
            return f"https://cdn.example.net/{row['slug']}/"
        return super().location(row)


class RaisesOnRows(ArticleSource):
    """contrib's location(item) on the dict a row is: AttributeError on every row."""

    def location(self, row: Any) -> str:
        return str(row.get_absolute_url())


def listed(client: Client) -> tuple[list[str], str]:
    status, body, headers = fetch(client, "/sitemap.xml")
    assert status == 200
    return [loc.removeprefix(BASE) for loc, _ in parse_index(body)], headers["ETag"]


def test_a_page_whose_every_row_is_skipped_leaves_the_index_after_its_404(
    client: Client, sources: Sources
) -> None:
    sources(TwoAPage)
    articles = bulk_articles(4)
    Article.objects.filter(pk__in=[a.pk for a in articles[2:]]).update(slug="off")
    pages, before = listed(client)
    assert pages == ["sitemap-articles-1.xml", "sitemap-articles-2.xml"]
    assert fetch(client, "/sitemap-articles-2.xml")[0] == 404
    pages, after = listed(client)
    assert (pages, after != before) == (["sitemap-articles-1.xml"], True)
    # Its rows changed, as the section's aggregate sees (the newest lastmod moved):
    # the page is listed again, and tried again.
    Article.objects.filter(pk=articles[3].pk).update(slug="back", updated_at=timezone.now())
    assert listed(client)[0] == ["sitemap-articles-1.xml", "sitemap-articles-2.xml"]
    assert fetch(client, "/sitemap-articles-2.xml")[0] == 200


def test_a_page_whose_rows_raise_leaves_the_index_after_its_500(
    client: Client, sources: Sources
) -> None:
    sources(RaisesOnRows, PagesSource)
    bulk_articles(1)
    assert listed(client)[0] == ["sitemap-articles-1.xml", "sitemap-pages-1.xml"]
    with pytest.raises(AttributeError):
        client.get("/sitemap-articles-1.xml")
    assert listed(client)[0] == ["sitemap-pages-1.xml"]


def test_an_index_of_nothing_answerable_is_a_404(client: Client, sources: Sources) -> None:
    sources(TwoAPage)
    Article.objects.filter(pk__in=[a.pk for a in bulk_articles(2)]).update(slug="off")
    assert fetch(client, "/sitemap-articles-1.xml")[0] == 404
    assert fetch(client, "/sitemap.xml")[0] == 404
