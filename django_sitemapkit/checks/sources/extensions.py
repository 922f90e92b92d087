"""System checks of a source's extension declarations: languages and hreflang
alternates, images and videos, Google News.
"""

from __future__ import annotations

from django.core.checks import CheckMessage, Error
from django.core.exceptions import FieldDoesNotExist, FieldError
from django.db import models

from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.extensions import (
    HREFLANG,
    NEWS_LANGUAGE,
    VIDEO_COLUMNS,
    VIDEO_REQUIRED,
    News,
    Related,
    RelatedQuery,
)
from django_sitemapkit.sources.declaration import BaseSource, Declaration, SitemapSource
from django_sitemapkit.sources.extended import has_alternates, language_codes


def check_extensions(source: BaseSource) -> list[CheckMessage]:
    return (
        check_languages(source)
        + check_alternates(source)
        + check_items(source, "images")
        + check_items(source, "videos")
        + check_news(source)
    )


def check_languages(source: BaseSource) -> list[CheckMessage]:
    if not source.i18n:
        return []
    languages = list(language_codes(Declaration(source)))
    bad = [code for code in languages if not isinstance(code, str) or not HREFLANG.fullmatch(code)]
    if languages and not bad and len(set(languages)) == len(languages):
        return []
    shown = bad[0] if bad else languages
    return [
        Error(
            f"{describe(source)} declares i18n with the languages {languages!r}; "
            f"{shown!r} is not a list of distinct language codes usable as hreflang.",
            hint="Set languages to codes from LANGUAGES such as ['en', 'fr', 'pt-br'], or "
            "leave it None to use every code of LANGUAGES.",
            obj=type(source),
            id="sitemapkit.E026",
        )
    ]


def check_alternates(source: BaseSource) -> list[CheckMessage]:
    declared = type(source).alternates
    if callable(declared) or declared is False or (declared is True and source.i18n):
        if not source.x_default or has_alternates(Declaration(source)):
            return []
        declared = "x_default = True"
    return [
        Error(
            f"{describe(source)} declares alternates {declared!r} without languages to "
            "take them from.",
            hint="Set i18n = True with alternates = True (and x_default = True if wanted), "
            "or define an alternates(row) method returning {hreflang: location}.",
            obj=type(source),
            id="sitemapkit.E027",
        )
    ]


def check_items(source: BaseSource, attribute: str) -> list[CheckMessage]:
    """``images`` or ``videos``: a ``Related`` declaration that can be read, or a method."""
    declared = getattr(type(source), attribute)
    if declared is None or callable(declared):
        return []
    problem = related_problem(source, attribute, declared)
    if problem is None:
        return []
    names = "loc='<field path>'" if attribute == "images" else "thumbnail_loc=..., title=..."
    return [
        Error(
            f"{describe(source)} declares {attribute} {declared!r}, which {problem}.",
            hint=f"Use Related('<relation>', {names}) naming a reverse foreign key or a "
            f"many-to-many relation of the model, or define an {attribute}(row) method.",
            obj=type(source),
            id="sitemapkit.E028",
        )
    ]


def related_problem(source: BaseSource, attribute: str, declared: object) -> str | None:
    if not isinstance(declared, Related):
        return "is neither Related(...) nor a method"
    if not isinstance(source, SitemapSource) or source.queryset is None:
        return "needs a queryset source"
    names = set(declared.paths)
    if attribute == "images" and names != {"loc"}:
        return "must name exactly one value, loc"
    if attribute == "videos":
        missing = set(VIDEO_REQUIRED) - names
        unknown = names - set(VIDEO_COLUMNS)
        if unknown:
            return f"names {sorted(unknown)!r}, which are not Video fields"
        if missing or not names & {"content_loc", "player_loc"}:
            return "lacks thumbnail_loc, title, description, or content_loc/player_loc"
    try:
        queryset = source.get_queryset()
        query = RelatedQuery(queryset.model, declared, queryset.db)
        query.related_model._default_manager.values(*query.paths)
    except (FieldDoesNotExist, FieldError, TypeError) as exc:
        return f"cannot be read ({exc})"
    return None


def check_news(source: BaseSource) -> list[CheckMessage]:
    news = source.news
    if news is None:
        return []
    problem = news_problem(source, news)
    if problem is None:
        return []
    return [
        Error(
            f"{describe(source)} declares news {news!r}, which {problem}.",
            hint="Use News(name='<publication>', language='en', title='<field path>', "
            "publication_date='<date or datetime field path>') on a queryset source; "
            "language is an ISO 639 code, or zh-cn or zh-tw.",
            obj=type(source),
            id="sitemapkit.E029",
        )
    ]


def news_problem(source: BaseSource, news: object) -> str | None:
    if not isinstance(news, News):
        return "is not News(...)"
    if not isinstance(source, SitemapSource) or source.queryset is None:
        return "needs a queryset source"
    if not isinstance(news.name, str) or not news.name.strip():
        return "has no publication name"
    if not isinstance(news.language, str) or not NEWS_LANGUAGE.fullmatch(news.language):
        return f"has the language {news.language!r}, which Google News does not accept"
    try:
        field = source.get_queryset().values(news.publication_date, news.title)
    except FieldError:
        return None  # sitemapkit.E011 names the path
    output = field.query.resolve_ref(news.publication_date).output_field
    if not isinstance(output, models.DateField):
        return f"has publication_date {news.publication_date!r}, not a date or datetime field"
    return None
