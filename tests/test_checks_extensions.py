"""Checks of the extension declarations (checks/sources/extensions.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import News, Related
from django_sitemapkit.checks import check_sources

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"


class GoodExtensions(ArticleSource):
    name = "good-extensions"
    i18n = True
    languages = ["en", "pt-br", "zh-Hant"]
    alternates = True
    x_default = True
    images = Related("photos", loc="file")
    videos = Related(
        "clips",
        thumbnail_loc="thumbnail",
        title="title",
        description="description",
        content_loc="file_url",
        duration="seconds",
    )
    news = News(name="Times", language="zh-cn", title="title", publication_date="published_on")


def test_valid_extensions_have_no_messages(sources: Sources) -> None:
    sources(GoodExtensions)
    assert check_sources() == []


@pytest.mark.parametrize(
    ("languages", "shown"),
    [([], "[]"), (["en", "en_US"], "'en_US'"), (["en", "en"], "['en', 'en']")],
)
def test_e026_languages(sources: Sources, languages: list[str], shown: str) -> None:
    bad = type(
        "BadLanguages",
        (ArticleSource,),
        {"i18n": True, "languages": languages, "__module__": __name__},
    )
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadLanguages declares i18n with the languages {languages!r}; {shown} "
            "is not a list of distinct language codes usable as hreflang.",
            hint="Set languages to codes from LANGUAGES such as ['en', 'fr', 'pt-br'], or "
            "leave it None to use every code of LANGUAGES.",
            obj=bad,
            id="sitemapkit.E026",
        )
    ]


@pytest.mark.parametrize(
    ("attributes", "shown"),
    [
        ({"alternates": True}, "True"),
        ({"alternates": {"en": "/"}}, "{'en': '/'}"),
        ({"i18n": True, "x_default": True}, "'x_default = True'"),
    ],
)
def test_e027_alternates_without_languages(
    sources: Sources, attributes: dict[str, object], shown: str
) -> None:
    bad = type("BadAlternates", (ArticleSource,), {**attributes, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadAlternates declares alternates {shown} without languages to take "
            "them from.",
            hint="Set i18n = True with alternates = True (and x_default = True if wanted), "
            "or define an alternates(row) method returning {hreflang: location}.",
            obj=bad,
            id="sitemapkit.E027",
        )
    ]


@pytest.mark.parametrize(
    ("attribute", "value", "problem"),
    [
        ("images", "photos", "is neither Related(...) nor a method"),
        ("images", Related("photos", url="url"), "must name exactly one value, loc"),
        (
            "images",
            Related("category", loc="slug"),
            "cannot be read (Article.category is not a reverse foreign key or a many-to-many "
            "relation)",
        ),
        (
            "images",
            Related("photos", loc="nope"),
            "cannot be read (Photo has no field named 'nope')",
        ),
        (
            "videos",
            Related("clips", thumbnail_loc="thumbnail", title="title", description="description"),
            "lacks thumbnail_loc, title, description, or content_loc/player_loc",
        ),
        (
            "videos",
            Related("clips", tags="title"),
            "names ['tags'], which are not Video fields",
        ),
    ],
)
def test_e028_images_and_videos(
    sources: Sources, attribute: str, value: object, problem: str
) -> None:
    bad = type("BadItems", (ArticleSource,), {attribute: value, "__module__": __name__})
    sources(bad)
    names = "loc='<field path>'" if attribute == "images" else "thumbnail_loc=..., title=..."
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadItems declares {attribute} {value!r}, which {problem}.",
            hint=f"Use Related('<relation>', {names}) naming a reverse foreign key or a "
            f"many-to-many relation of the model, or define an {attribute}(row) method.",
            obj=bad,
            id="sitemapkit.E028",
        )
    ]


def test_e028_related_needs_a_queryset_source(sources: Sources) -> None:
    bad = type(
        "StaticImages",
        (PagesSource,),
        {"images": Related("photos", loc="url"), "__module__": __name__},
    )
    sources(bad)
    assert [(error.id, error.msg.rsplit(", which ", 1)[1]) for error in check_sources()] == [
        ("sitemapkit.E028", "needs a queryset source.")
    ]


NEWS = {"name": "Times", "language": "en", "title": "title", "publication_date": "updated_at"}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name": " "}, "has no publication name"),
        ({"language": "en-US"}, "has the language 'en-US', which Google News does not accept"),
        ({"publication_date": "slug"}, "has publication_date 'slug', not a date or datetime field"),
    ],
)
def test_e029_news(sources: Sources, change: dict[str, str], problem: str) -> None:
    news = News(**{**NEWS, **change})
    bad = type("BadNews", (ArticleSource,), {"news": news, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadNews declares news {news!r}, which {problem}.",
            hint="Use News(name='<publication>', language='en', title='<field path>', "
            "publication_date='<date or datetime field path>') on a queryset source; "
            "language is an ISO 639 code, or zh-cn or zh-tw.",
            obj=bad,
            id="sitemapkit.E029",
        )
    ]


def test_e029_leaves_a_missing_field_path_to_e011(sources: Sources) -> None:
    news = News(**{**NEWS, "title": "headline"})
    bad = type("MissingNewsField", (ArticleSource,), {"news": news, "__module__": __name__})
    sources(bad)
    assert [(error.id, error.msg.split(", which")[0]) for error in check_sources()] == [
        (
            "sitemapkit.E011",
            f"{SOURCE}.MissingNewsField names the field path 'headline'",
        )
    ]


def test_extension_checks_are_registered(sources: Sources) -> None:
    bad = type("BadRegistered", (ArticleSource,), {"alternates": True, "__module__": __name__})
    sources(bad)
    with pytest.raises(SystemCheckError, match=r"\(sitemapkit\.E027\) Sitemap source "):
        call_command("check")
