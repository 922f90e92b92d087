"""Entries with extension elements: a row's URL in each language, its alternates,
images, videos and news, read a chunk of rows at a time."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import translation

from django_sitemapkit import extensions
from django_sitemapkit.encoding.elements import Extras, NewsItem
from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import News, Related, RelatedQuery
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sources.declaration import Declaration
from django_sitemapkit.sources.optional import LeftOut

logger = logging.getLogger("django_sitemapkit")

#: Per ``Related`` declaration, the values of each primary key of a chunk of rows.
RelatedValues = dict[str, dict[Any, list[tuple[Any, ...]]]]
#: A row's entry in each of its languages (``None`` when it has one URL).
LanguageEntries = list[tuple[str | None, Entry]]
#: ``(hreflang, href)`` pairs.
Links = tuple[tuple[str, str], ...]
Maker = Callable[[Any], Entry]
Reader = Callable[[Any], Any]


def has_alternates(declaration: Declaration) -> bool:
    value = declaration["alternates"]
    return callable(value) or (value is True and bool(declaration["i18n"]))


def extension_prefixes(declaration: Declaration) -> tuple[str, ...]:
    """The extension prefixes this source's documents declare and may use."""
    used = {
        extensions.ALTERNATES: has_alternates(declaration),
        extensions.IMAGES: declaration["images"] is not None,
        extensions.VIDEOS: declaration["videos"] is not None,
        extensions.NEWS: declaration["news"] is not None,
    }
    return tuple(prefix for prefix, is_used in used.items() if is_used)


def language_codes(declaration: Declaration) -> tuple[str | None, ...]:
    """The languages each row is listed in; ``(None,)`` for one URL per row."""
    if not declaration["i18n"]:
        return (None,)
    languages = declaration["languages"]
    if languages is not None:
        return tuple(languages)
    return tuple(code for code, _ in settings.LANGUAGES)


@dataclass(frozen=True)
class Extender:
    """A row's entries in every language, with their extension elements."""

    section: str
    row_key: Callable[[Any], str]
    makers: Sequence[tuple[str | None, Maker]]
    alternates: Callable[[Any, LanguageEntries], Links]
    images: Callable[[Any, RelatedValues], Iterable[Any]]
    videos: Callable[[Any, RelatedValues], Iterable[Any]]
    news: Callable[[Any], NewsItem | None]
    policy: LocationPolicy
    strict: bool

    def __call__(self, row: Any, related: RelatedValues) -> list[Entry]:
        """The row's entries; ``LeftOut`` with them if a language's entry was made
        without an invalid optional value."""
        left_out: list[tuple[str, str]] = []
        made = self.language_entries(row, left_out)
        own = made[0][1].loc
        origin = self.policy.origin
        links = self.alternates(row, made)
        skipped: list[str] = []
        images = checked_items(
            self.images(row, related),
            extensions.MAX_IMAGES,
            "image",
            skipped,
            lambda value: extensions.resource_url(value, origin, "image"),
        )
        videos = checked_items(
            self.videos(row, related),
            None,
            "video",
            skipped,
            lambda value: extensions.format_video(value, origin, own),
        )
        if skipped and self.strict:
            # The caller names the row and the source.
            raise InvalidEntry(skipped[0])
        for problem in skipped:
            logger.warning(
                "Left out %s of %s of source %r.", problem, self.row_key(row), self.section
            )
        extras = Extras(links, tuple(images), tuple(videos), self.news(row))
        entries = [entry._replace(extras=extras) for _, entry in made]
        if left_out:
            raise LeftOut(entries, tuple(left_out))
        return entries

    def language_entries(self, row: Any, left_out: list[tuple[str, str]]) -> LanguageEntries:
        """The row's entry in each language, each made under ``translation.override()``;
        the values left out of them are added to ``left_out``, each reason once."""
        made = []
        for language, make in self.makers:
            try:
                if language is None:
                    entry = make(row)
                else:
                    with translation.override(language):
                        entry = make(row)
            except LeftOut as exc:
                entry = exc.made
                left_out += (reason for reason in exc.reasons if reason not in left_out)
            made.append((language, entry))
        return made


def default_location(make: Maker, row: Any) -> str:
    """The location of ``row``'s entry by ``make``, whatever optional value it lacks
    (its own language's entry says so)."""
    try:
        return make(row).loc
    except LeftOut as exc:
        entry: Entry = exc.made
        return entry.loc


def checked_items(
    values: Iterable[Any],
    limit: int | None,
    what: str,
    skipped: list[str],
    check: Callable[[Any], Any],
) -> list[Any]:
    """The valid values, up to ``limit``; what is left out is described in ``skipped``."""
    items: list[Any] = []
    for value in values:
        if limit is not None and len(items) == limit:
            skipped.append(f"every {what} after the first {limit:,} (the limit per URL)")
            break
        try:
            items.append(check(value))
        except InvalidEntry as exc:
            skipped.append(f"an invalid {what} ({exc})")
    return items


def alternates_reader(
    declaration: Declaration, policy: LocationPolicy, default_maker: Maker | None
) -> Callable[[Any, LanguageEntries], Links]:
    """A function from a row (and its entries per language) to its alternates;
    ``default_maker`` makes the row's entry in ``LANGUAGE_CODE`` for ``x_default``."""
    if callable(declaration["alternates"]):
        method = declaration.source.alternates

        def mapped(row: Any, made: LanguageEntries) -> Links:
            return extensions.format_alternates(method(row), made[0][1].loc, policy)

        return mapped
    if not has_alternates(declaration):
        return lambda row, made: ()
    default_code = settings.LANGUAGE_CODE

    def reciprocal(row: Any, made: LanguageEntries) -> Links:
        # Every URL of the row lists the same set: each language's URL, its
        # own included (Google, "Tell Google about localized versions of your
        # page"), and the x-default when declared.
        links = [(str(language), entry.loc) for language, entry in made]
        if default_maker is not None:
            default = next((entry.loc for code, entry in made if code == default_code), None)
            if default is None:
                with translation.override(default_code):
                    default = default_location(default_maker, row)
            links.append((extensions.X_DEFAULT, default))
        return tuple(links)

    return reciprocal


def items_reader(
    declaration: Declaration, attribute: str, pk_of: Reader | None
) -> Callable[[Any, RelatedValues], Iterable[Any]]:
    """Images or videos of a row: from the chunk's related values, or a per-row method."""
    value = declaration[attribute]
    if value is None:
        return lambda row, related: ()
    if isinstance(value, Related):
        names = list(value.paths)

        def from_related(row: Any, related: RelatedValues) -> Iterable[Any]:
            # Nothing to read for a source without a model (sitemapkit.E028).
            if pk_of is None:
                return ()
            values = related.get(attribute, {}).get(pk_of(row), ())
            if attribute == "images":
                return extensions.related_images(values)
            return extensions.related_videos(names, values)

        return from_related
    method = getattr(declaration.source, attribute)

    def from_method(row: Any, related: RelatedValues) -> Iterable[Any]:
        values: Iterable[Any] | None = method(row)
        if values is None:
            return ()
        if isinstance(values, (str, bytes)):
            # A single URL where a list of them was meant.
            return [values]
        return values

    return from_method


def news_reader(
    news: News | None, read_field: Callable[[str], Reader]
) -> Callable[[Any], NewsItem | None]:
    if news is None:
        return lambda row: None
    title_of = read_field(news.title)
    published_of = read_field(news.publication_date)
    return lambda row: extensions.format_news(news, title_of(row), published_of(row))


def related_queries(declaration: Declaration, model: Any, using: str) -> dict[str, RelatedQuery]:
    """``RelatedQuery`` of each extension declared as :class:`Related`."""
    return {
        attribute: RelatedQuery(model, value, using)
        for attribute in ("images", "videos")
        if isinstance(value := declaration[attribute], Related)
    }
