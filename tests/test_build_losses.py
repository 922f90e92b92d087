"""A section that loses most of its URLs fails the build (build/losses.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from built_sets import leftovers, snapshot
from django.core.management import CommandError, call_command
from factories import bulk_articles
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]


def build(output: Path) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0)


class OnHttp(ArticleSource):
    """A project's URL builder, which writes http in development."""

    def location(self, row: Any) -> str:
        return f"http://www.example.com/articles/{row['slug']}/"


def test_a_section_on_another_scheme_fails_and_the_last_set_stays(
    sources: Sources, out: Path
) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(3)
    build(out)
    before = snapshot(out)
    sources(OnHttp, PagesSource)
    with pytest.raises(CommandError) as raised:
        build(out)
    assert (str(raised.value), raised.value.returncode) == (
        "Section 'articles' skips 3 of its first 3 URLs: they are on "
        "'http://www.example.com', and the site's base URL is 'https://www.example.com' (a "
        "sitemap lists URLs of its base URL's scheme and host only). Make location() (or "
        "the URL builder it calls) return paths starting with '/', which the sitemap writes "
        "on 'https://www.example.com'; or, if the site is served on 'http://www.example.com', "
        f"set SITEMAPKIT_BASE_URL to 'http://www.example.com'. Nothing was published: the files in "
        f"{out} are as they were.",
        1,
    )
    assert snapshot(out) == before
    assert leftovers(out) == []


def test_half_the_rows_skipped_is_built(sources: Sources, out: Path) -> None:
    class SomeOff(ArticleSource):
        def location(self, row: Any) -> str:
            if row["slug"].startswith("off"):
                return f"http://www.example.com/articles/{row['slug']}/"
            return super().location(row)

    sources(SomeOff)
    first, second, *_ = bulk_articles(4)
    Article.objects.filter(pk__in=[first.pk, second.pk]).update(slug="off")
    build(out)
    assert "sitemap-articles-1.xml" in snapshot(out)
