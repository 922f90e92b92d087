"""W066 (checks/compat_classes.py): a class the drop-in serves whose lastmod is no
date; E100 and W046 are tested with django CMS and Wagtail (tests/thirdparty)."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.contrib.sitemaps import Sitemap
from django.core.checks import Warning
from django.core.management import call_command
from factories import ArticleFactory
from testapp.contrib_sitemaps import SITEMAPS
from testapp.models import Article

from django_sitemapkit import compat
from django_sitemapkit.checks import check_dropin_lastmods

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]


class TextLastmod(Sitemap):  # type: ignore[type-arg]
    """lastmod() returning the date as text (issue 43): contrib writes an empty
    <lastmod>, and nothing said so."""

    def items(self) -> Any:
        return Article.objects.order_by("pk")

    def lastmod(self, item: Article) -> str:
        return f"{item.updated_at:%Y-%m-%d}"


def test_w066_a_drop_in_lastmod_that_is_text(sources: Sources) -> None:
    article = ArticleFactory.create()
    sources()
    compat.register({"posts": TextLastmod})
    assert check_dropin_lastmods() == [
        Warning(
            "The lastmod of the section 'posts' of compat.register() is "
            f"'{article.updated_at:%Y-%m-%d}' for its first item, a str, not a "
            "date or datetime: no sitemap can write it as a date.",
            hint="Return the item's datetime (or date) from lastmod(), such as "
            "item.updated_at, not its text; or return None for no <lastmod>.",
            id="sitemapkit.W066",
        )
    ]
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "W066" not in out.getvalue()
    call_command("check", deploy=True, stdout=out, stderr=out, fail_level="CRITICAL")
    assert "?: (sitemapkit.W066) The lastmod of the section 'posts'" in out.getvalue()


def test_w066_quiet_on_datetimes_and_without_items(sources: Sources) -> None:
    sources()
    compat.register(SITEMAPS)
    assert check_dropin_lastmods() == []
    ArticleFactory.create()
    assert check_dropin_lastmods() == []
