"""The index leaves out a source that raises (documents.py): the other sections
stay listed, and the error names the source and the exception."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import QuerySet
from django.test import Client, override_settings
from factories import bulk_articles
from sitemap_xml import fetch, parse_index
from testapp.sitemaps import ArticleSource, PagesSource

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]


class Broken(ArticleSource):
    """A queryset the project's code cannot make."""

    name = "broken"

    def get_queryset(self) -> QuerySet[Any]:
        raise AttributeError("'NoneType' object has no attribute 'objects'")


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"]


def test_a_source_that_raises_when_counted_is_left_out(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource, Broken, PagesSource)
    bulk_articles(2)
    status, body, _ = fetch(client, "/sitemap.xml")
    assert (status, [loc for loc, _ in parse_index(body)]) == (
        200,
        [
            "https://www.example.com/sitemap-articles-1.xml",
            "https://www.example.com/sitemap-pages-1.xml",
        ],
    )
    assert logged(caplog) == [
        (
            "ERROR",
            "Sitemap source 'broken' is left out of the index: counting its rows raised "
            "AttributeError: 'NoneType' object has no attribute 'objects'",
        )
    ]


def test_with_every_source_broken_the_index_is_a_404(client: Client, sources: Sources) -> None:
    sources(Broken)
    assert fetch(client, "/sitemap.xml")[0] == 404


@override_settings(SITEMAPKIT_CHANGES="record")
def test_the_versioned_index_leaves_it_out_too(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(Broken, PagesSource)
    status, body, _ = fetch(client, "/sitemap.xml")
    assert (status, [loc for loc, _ in parse_index(body)]) == (
        200,
        ["https://www.example.com/sitemap-pages-1.xml"],
    )
    assert [level for level, _ in logged(caplog)] == ["ERROR"]
