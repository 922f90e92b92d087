"""W064 and W065 (checks/sources/strays.py): a source class never registered, and
contrib's names on a source, which the engine never reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import testapp.sitemaps
from django.core.checks import Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import SitemapSource, compat
from django_sitemapkit.checks import check_strays

Sources = Callable[..., None]


class Forgotten(ArticleSource):
    name = "forgotten"


class AlsoForgotten(ArticleSource):
    name = "also-forgotten"


class Base(SitemapSource):
    """A base of other sources: no name, no section."""

    queryset = Article.objects.all()


@pytest.fixture
def in_app_sitemaps(monkeypatch: pytest.MonkeyPatch) -> Callable[[type], None]:
    """Put a class in the installed app's sitemaps.py, as if written there."""

    def define(cls: type) -> None:
        monkeypatch.setattr(cls, "__module__", "testapp.sitemaps")
        monkeypatch.setattr(testapp.sitemaps, cls.__name__, cls, raising=False)

    return define


def test_w064_a_source_of_an_app_s_sitemaps_never_registered(
    sources: Sources, in_app_sitemaps: Callable[[type], None]
) -> None:
    sources(ArticleSource, PagesSource)
    in_app_sitemaps(Forgotten)
    in_app_sitemaps(Base)
    assert check_strays() == [
        Warning(
            "Sitemap source testapp.sitemaps.Forgotten is a source class of "
            "'testapp.sitemaps' that is never registered: its section is in no sitemap.",
            hint="Decorate it with @register (from django_sitemapkit import register), or, "
            "if it is a base of other sources, give it no name.",
            obj=Forgotten,
            id="sitemapkit.W064",
        )
    ]
    sources(ArticleSource, PagesSource, Forgotten)
    assert check_strays() == []


def test_w064_is_registered(sources: Sources, in_app_sitemaps: Callable[[type], None]) -> None:
    sources(ArticleSource, PagesSource)
    in_app_sitemaps(AlsoForgotten)
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.W064\) Sitemap source testapp"):
        call_command("check", fail_level="WARNING")


class ContribStyle(ArticleSource):
    """Written as a contrib Sitemap: items() and a paginator the engine ignores."""

    def items(self) -> Any:
        return Article.objects.filter(published=False)

    protocol = "https"


def test_w065_contrib_names_on_a_source(sources: Sources) -> None:
    sources(ContribStyle, PagesSource)
    silence = " If {!r} is a helper of your own, silence sitemapkit.W065 (SILENCED_SYSTEM_CHECKS)."
    assert check_strays() == [
        Warning(
            f"Sitemap source {__name__}.ContribStyle defines 'items', a method of "
            "django.contrib.sitemaps.Sitemap that a source does not have: the engine never "
            "reads it.",
            hint="Declare queryset = Model.objects.filter(...) (or override get_queryset()); "
            "on a StaticSource, list the pages in urls." + silence.format("items"),
            obj=ContribStyle,
            id="sitemapkit.W065",
        ),
        Warning(
            f"Sitemap source {__name__}.ContribStyle defines 'protocol', an attribute of "
            "django.contrib.sitemaps.Sitemap that a source does not have: the engine never "
            "reads it.",
            hint="The base URL gives the scheme: SITEMAPKIT_BASE_URL, or "
            "SITEMAPKIT_SITE_SCHEME with django.contrib.sites." + silence.format("protocol"),
            obj=ContribStyle,
            id="sitemapkit.W065",
        ),
    ]


@pytest.mark.django_db
def test_no_w065_for_the_contrib_classes_compat_registers(sources: Sources) -> None:
    from testapp.contrib_sitemaps import SITEMAPS

    sources(ArticleSource, PagesSource)
    compat.register(SITEMAPS)
    assert check_strays() == []
