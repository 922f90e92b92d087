"""A contrib ``Sitemap``'s units (items, ``(item, language)`` pairs, or the dicts its
``get_urls()`` returns) to entries: each value read as contrib reads it, then
checked and formatted by the engine. An invalid location skips its entry; an
invalid ``lastmod``, ``changefreq`` or ``priority`` (a bound method a mixin copied
into a dict uncalled, a string, a number out of range) is left out of its
entry, which is kept, where contrib's template would write it as given. Both
are logged once per reason and page (``sources/skips.py``), or raised with
``SITEMAPKIT_STRICT``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db.models import Model
from django.urls import NoReverseMatch
from django.utils import translation

from django_sitemapkit.compat.classes import ContribClass
from django_sitemapkit.compat.lastmods import contrib_lastmod
from django_sitemapkit.encoding.elements import Extras
from django_sitemapkit.encoding.encoder import Entry, Lines, entry_lines, url_element
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import X_DEFAULT, format_alternates
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sources.entries import unreversed
from django_sitemapkit.sources.optional import LeftOut, optional_values
from django_sitemapkit.sources.rows import Chunk
from django_sitemapkit.sources.skips import Tally, keep_made, skip_entry, undate_row
from django_sitemapkit.sources.writer import undate
from django_sitemapkit.values import Horizon, format_changefreq, format_lastmod, format_priority


def contrib_value(site: Any, name: str, item: Any) -> Any:
    """contrib's rule: a missing attribute is ``None``, a callable is called with the item."""
    try:
        value = getattr(site, name)
    except AttributeError:
        return None
    return value(item) if callable(value) else value


def priority_text(value: Any) -> str | None:
    """A priority as a number, or as the text contrib writes (``""`` for none)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = Decimal(value.strip())
        except InvalidOperation as exc:
            raise InvalidEntry(f"priority {value!r} is not a number") from exc
    return format_priority(value)


def contrib_lastmod_text(value: Any) -> str:
    """A lastmod as contrib reads it (a naive datetime in UTC), checked and formatted."""
    return format_lastmod(contrib_lastmod(value))


Reader = Callable[[Any], "str | None"]
#: How each optional value is checked and written, in the order of an entry's.
WRITTEN: Mapping[str, Callable[[Any], str | None]] = {
    "lastmod": contrib_lastmod_text,
    "changefreq": format_changefreq,
    "priority": priority_text,
}


def value_reader(site: Any, name: str, written: Callable[[Any], str | None]) -> Reader:
    """A function from an item to the text of its value ``name``, read by contrib's rule
    (``contrib_value()``): a constant is checked and formatted once, not per item."""
    try:
        value = getattr(site, name)
    except AttributeError:
        value = None
    if callable(value):
        method = value

        def read(item: Any) -> str | None:
            found = method(item)
            return None if found is None else written(found)

        return read
    try:
        text = None if value is None else written(value)
    except InvalidEntry as exc:
        reason = str(exc)

        def refuse(item: Any) -> str | None:
            raise InvalidEntry(reason)

        return refuse
    return lambda item: text


def item_key(item: Any) -> str:
    """How a log message names an item."""
    if isinstance(item, Model):
        return f"pk={item.pk!r}"
    return f"item {item!r}"


@dataclass(frozen=True)
class ContribWriter:
    """Entries, and ``<urlset>`` lines, of each chunk of a contrib class's units."""

    contrib: ContribClass
    policy: LocationPolicy
    strict: bool
    #: A ``lastmod`` later than this is left out of its entry, as the engine's writer does.
    horizon: Horizon = field(default_factory=Horizon)

    def entries(self, chunk: Chunk, tally: Tally | None = None) -> list[Entry]:
        made: list[Entry] = []
        make, key = self.maker(), self.key()
        for unit in chunk:
            try:
                made.append(make(unit))
            except LeftOut as exc:
                made.append(keep_made(self.contrib.section, key(unit), exc, tally, self.strict))
            except InvalidEntry as exc:
                skip_entry(self.contrib.section, key(unit), exc, tally, self.strict)
                continue
            late = undate(made, len(made) - 1, self.horizon)
            if late is not None:
                undate_row(self.contrib.section, key(unit), late, tally, self.strict)
        return made

    def lines(
        self,
        chunk: Chunk,
        tally: Tally | None = None,
        element: Callable[[Entry], str] = url_element,
    ) -> Lines:
        return entry_lines(self.entries(chunk, tally), element)

    def key(self) -> Callable[[Any], str]:
        if self.contrib.own_urls:
            relocate = self.contrib.relocator()

            def located(url: Mapping[str, Any]) -> str:
                location = url.get("location")
                return f"URL {relocate(location) if isinstance(location, str) else location!r}"

            return located
        if self.contrib.i18n:
            return lambda unit: f"{item_key(unit[0])} ({unit[1]})"
        return item_key

    def maker(self) -> Callable[[Any], Entry]:
        if self.contrib.own_urls:
            relocate = self.contrib.relocator()
            return lambda url: self.url_entry(url, relocate)
        if self.contrib.i18n:
            return self.translated_entry
        return self.item_entry

    @cached_property
    def readers(self) -> tuple[tuple[str, Reader], ...]:
        """How ``lastmod``, ``changefreq`` and ``priority`` are read and formatted."""
        site = self.contrib.site
        return tuple((name, value_reader(site, name, written)) for name, written in WRITTEN.items())

    def checked(self, location: Any, item: Any, extras: Extras | None = None) -> Entry:
        if not isinstance(location, str):
            raise InvalidEntry(f"location {location!r} is not a string")
        return kept_entry(self.policy.absolute(location), self.readers, item, extras)

    def location(self, item: Any, language: str | None = None) -> Any:
        """``location(item)``, under ``language`` when given (contrib's ``_location()``)."""
        try:
            if language is None:
                return contrib_value(self.contrib.site, "location", item)
            with translation.override(language):
                return contrib_value(self.contrib.site, "location", item)
        except (NoReverseMatch, UnicodeError) as exc:
            raise unreversed(exc) from exc

    def item_entry(self, item: Any) -> Entry:
        return self.checked(self.location(item), item)

    def translated_entry(self, unit: tuple[Any, str]) -> Entry:
        """One language's URL of an item, with every language's as its alternates
        when the class asks for them (contrib's ``alternates`` and ``x_default``)."""
        item, language = unit
        location = self.location(item, language)
        site = self.contrib.site
        if not getattr(site, "alternates", False) or not isinstance(location, str):
            return self.checked(location, item)
        languages = self.contrib.item_languages(item)
        links = {code: self.location(item, code) for code in languages}
        default = settings.LANGUAGE_CODE
        if (
            getattr(site, "x_default", False)
            and default in languages
            and isinstance(links[default], str)
        ):
            # contrib's x-default: the default language's URL without its prefix.
            links[X_DEFAULT] = links[default].replace(f"/{default}/", "/", 1)
        own = self.policy.absolute(location)
        return self.checked(location, item, Extras(format_alternates(links, own, self.policy)))

    def url_entry(self, url: Mapping[str, Any], relocate: Callable[[str], str]) -> Entry:
        """An entry of a dict from ``get_urls()``: its host mended, its values checked."""
        location = url.get("location")
        if not isinstance(location, str):
            raise InvalidEntry(f"location {location!r} is not a string")
        location = relocate(location)
        extras = None
        alternates = url.get("alternates") or ()
        if alternates:
            links = {
                str(link.get("lang_code")): relocate(str(link.get("location")))
                for link in alternates
            }
            own = self.policy.absolute(location)
            extras = Extras(format_alternates(links, own, self.policy))
        return kept_entry(self.policy.absolute(location), DICT_READERS, url, extras)


def kept_entry(
    location: str, readers: tuple[tuple[str, Reader], ...], unit: Any, extras: Extras | None
) -> Entry:
    """The entry of ``unit`` at ``location``: ``LeftOut`` with it if a value was invalid."""
    try:
        lastmod, changefreq, priority = optional_values(readers, unit)
    except LeftOut as exc:
        lastmod, changefreq, priority = exc.made
        raise LeftOut(Entry(location, lastmod, changefreq, priority, extras), exc.reasons) from None
    return Entry(location, lastmod, changefreq, priority, extras)


def dict_reader(name: str) -> Reader:
    """A ``get_urls()`` dict's value ``name``, written as contrib's template reads it."""
    written = WRITTEN[name]

    def read(url: Mapping[str, Any]) -> str | None:
        value = url.get(name)
        return None if value is None else written(value)

    return read


#: How a URL dict's values are read, in the order of an entry's.
DICT_READERS = tuple((name, dict_reader(name)) for name in WRITTEN)
