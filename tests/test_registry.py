from __future__ import annotations

import pytest
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import SitemapSource, register, registry
from django_sitemapkit.registry import Registry


def test_apps_sitemaps_modules_are_autodiscovered() -> None:
    assert [type(source) for source in registry.all()] == [ArticleSource, PagesSource]


def test_register_is_a_class_decorator() -> None:
    local = Registry()

    @local.register
    class One(ArticleSource):
        name = "one"

    assert One.name == "one"
    assert [type(s) for s in local.all()] == [One]
    assert local.get("one").__class__ is One
    assert local.get("two") is None


def test_duplicates_are_kept_for_the_checks_and_the_first_wins() -> None:
    local = Registry()
    local.register(ArticleSource)

    class Again(ArticleSource):
        pass

    local.register(Again)
    assert [type(s) for s in local.all()] == [ArticleSource, Again]
    assert [type(s) for s in local.sections()] == [ArticleSource]
    assert type(local.get("articles")) is ArticleSource
    local.unregister(ArticleSource)
    assert [type(s) for s in local.all()] == [Again]


@pytest.mark.parametrize("thing", [ArticleSource(), object, "articles", SitemapSource.location])
def test_register_refuses_what_is_not_a_source_class(thing: object) -> None:
    with pytest.raises(TypeError) as info:
        register(thing)  # type: ignore[type-var]
    assert str(info.value) == (
        f"register() takes a SitemapSource or StaticSource subclass, not {thing!r}."
    )
