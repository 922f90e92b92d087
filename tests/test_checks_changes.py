"""System checks of fresh on commit (checks/changes.py): E110 and E111 are the
settings table's (tests/test_checks_setting_values.py); here E112 and W060, and
that the checks are registered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from testapp.models import Article, Category

from django_sitemapkit import SitemapSite, SitemapSource
from django_sitemapkit.checks import check_changes

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"
HINT = (
    "Map each model the entries read (the class, or 'app_label.ModelName') to the lookup "
    "from the source's model to it, as a filter() takes it: depends_on = {Comment: 'comments'}."
)


def source(class_name: str = "Depending", **attributes: Any) -> type[SitemapSource]:
    body = {"name": "articles", "queryset": Article.objects.all(), **attributes}
    return type(class_name, (SitemapSource,), {**body, "__module__": __name__})


def e112(cls: type[SitemapSource], problem: str) -> Error:
    return Error(
        f"{SOURCE}.{cls.__name__} declares depends_on {problem}.",
        hint=HINT,
        obj=cls,
        id="sitemapkit.E112",
    )


def test_lookups_that_reach_their_model_pass(sources: Sources) -> None:
    cls = source(depends_on={Category: "category", "testapp.Photo": "photos"})
    sources(cls)
    assert check_changes() == []


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        (
            {"nope.Model": "category"},
            "'nope.Model', which is neither a model nor an installed model's label",
        ),
        ({Category: ""}, "<class 'testapp.models.Category'>: '', whose lookup is not a field path"),
        (
            {Category: "photos"},
            "<class 'testapp.models.Category'>: 'photos', a lookup from testapp.Article that "
            "reaches testapp.Photo, not testapp.Category",
        ),
        (
            {"testapp.Category": "title"},
            "'testapp.Category': 'title', a lookup from testapp.Article that reaches no model, "
            "not testapp.Category",
        ),
    ],
)
def test_a_lookup_that_does_not_reach_its_model(
    sources: Sources, declared: dict[Any, str], problem: str
) -> None:
    cls = source(depends_on=declared)
    sources(cls)
    assert check_changes() == [e112(cls, problem)]


def test_depends_on_that_is_no_dict(sources: Sources) -> None:
    cls = source(depends_on=["comments"])
    sources(cls)
    assert check_changes() == [e112(cls, "['comments'], not a dict")]


class SiteOnly(SitemapSource):
    name = "site-only"

    def get_site_queryset(self, site: SitemapSite) -> Any:
        return Article.objects.all()


def test_a_source_whose_model_needs_a_site_is_warned_of_when_changes_are_recorded(
    sources: Sources,
) -> None:
    sources(SiteOnly)
    assert check_changes() == []
    with override_settings(SITEMAPKIT_CHANGES="record"):
        assert check_changes() == [
            Warning(
                f"{SOURCE}.SiteOnly declares no queryset, and its get_queryset() needs a "
                "site: SITEMAPKIT_CHANGES cannot tell which model's changes are its own, so "
                "none is recorded for it, and it is fresh only after a build that compares it.",
                hint="Declare queryset = Model.objects.all() on the source (get_site_queryset() "
                "may still filter it), or call django_sitemapkit.changed() when its rows change.",
                obj=SiteOnly,
                id="sitemapkit.W060",
            )
        ]


def test_the_checks_are_registered(sources: Sources) -> None:
    sources(source(depends_on={"nope.Model": "x"}))
    with override_settings(SITEMAPKIT_CHANGES="nightly"), pytest.raises(SystemCheckError) as raised:
        call_command("check")
    assert "sitemapkit.E110" in str(raised.value)
    assert "sitemapkit.E112" in str(raised.value)
