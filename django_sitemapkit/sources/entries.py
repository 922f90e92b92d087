"""From a row to its entry: each value's reader and the locator, decided once per plan.

Every reader here is built when a plan is compiled, for the row format the
plan chose, so nothing per row asks what the source declared.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import partial
from operator import attrgetter, itemgetter
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.urls import NoReverseMatch, reverse

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.policy import MAX_LOCATION_LENGTH, LocationPolicy
from django_sitemapkit.locations.reversal import compiled_reverse
from django_sitemapkit.locations.templates import UrlTemplate, quick_locator
from django_sitemapkit.sources.declaration import (
    BaseSource,
    Declaration,
    Field,
    SitemapSource,
    field_value,
)
from django_sitemapkit.sources.optional import LeftOut, optional_pair
from django_sitemapkit.sources.rows import RowShape
from django_sitemapkit.values import format_changefreq, format_lastmod, format_priority

FORMATTERS: Mapping[str, Callable[[Any], str]] = {
    "lastmod": format_lastmod,
    "changefreq": format_changefreq,
    "priority": format_priority,
}
Reader = Callable[[Any], Any]
logger = logging.getLogger("django_sitemapkit")
#: The per-row methods a project may define; each hands it rows.
ROW_METHODS = ("lastmod", "changefreq", "priority", "alternates", "images", "videos")


class RowFormat(Enum):
    """What a row is while its entry is made."""

    RAW = "a tuple from the cursor"
    DICT = "a dict of field paths (values())"
    INSTANCE = "a model instance"
    STATIC = "a StaticPage"


def row_format(declaration: Declaration, located_by_hook: bool) -> RowFormat:
    """Raw cursor rows unless the project's own code sees them: those are promised
    dicts of field paths, or instances."""
    if declaration["use_instances"] or (
        located_by_hook
        and declaration["url_name"] is None
        and not declaration.overrides("location", SitemapSource)
    ):
        return RowFormat.INSTANCE
    sees_rows = located_by_hook or any(callable(declaration[name]) for name in ROW_METHODS)
    if sees_rows or not declaration["raw_rows"]:
        return RowFormat.DICT
    return RowFormat.RAW


@dataclass(frozen=True)
class Value:
    """How one optional value is obtained: fixed for every row, or read per row."""

    constant: str | None = None
    read: Callable[[Any], str | None] | None = None


def field_path(declaration: Declaration, attribute: str, queryset_source: bool) -> str | None:
    """The field path ``attribute`` is read from, if it is declared as one; on a queryset
    source a plain string ``lastmod`` is a field path too."""
    value = declaration[attribute]
    if isinstance(value, Field):
        return value.path
    if attribute == "lastmod" and queryset_source and isinstance(value, str):
        return value
    return None


def field_reader(path: str, row_format: RowFormat, shape: RowShape | None) -> Reader:
    """A function from a row to the value of a field path."""
    if row_format is RowFormat.RAW:
        assert shape is not None
        return shape.reader(path)
    if row_format is RowFormat.DICT:
        return itemgetter(path)
    if row_format is RowFormat.INSTANCE:
        if path == "pk" or "__" not in path:
            return attrgetter(path)
        return partial(_instance_value, path=path)

    def no_field(row: Any) -> Any:
        raise InvalidEntry(f"static pages have no field {path!r}")

    return no_field


def _instance_value(row: Any, path: str) -> Any:
    return field_value(row, path)


def value_of(
    declaration: Declaration,
    attribute: str,
    path: str | None,
    read_field: Callable[[str], Reader],
    shape: RowShape | None,
) -> Value:
    """``lastmod``, ``changefreq`` or ``priority``: a constant, a field, or a method."""
    value = declaration[attribute]
    formatter = FORMATTERS[attribute]
    if path is not None:
        if attribute == "lastmod" and shape is not None:
            return Value(read=shape.lastmod_reader(path))
        read = read_field(path)
    elif callable(value):
        read = getattr(declaration.source, attribute)
    elif value is None:
        return Value()
    else:
        try:
            return Value(constant=formatter(value))
        except InvalidEntry as exc:
            return invalid_constant(declaration, attribute, exc)

    def formatted(row: Any) -> str | None:
        found = read(row)
        return None if found is None else formatter(found)

    return Value(read=formatted)


def invalid_constant(declaration: Declaration, attribute: str, exc: InvalidEntry) -> Value:
    """No value for a constant ``changefreq`` or ``priority`` that is invalid: every URL of
    the section is listed without it, and each plan compiled says so (raised with
    ``SITEMAPKIT_STRICT``). An invalid ``lastmod`` constant would skip every row, so it
    is raised. The system checks report each at start-up (sitemapkit.E008, E009,
    E015); this is the backstop of a server that runs no checks."""
    message = f"Source {declaration.name!r} declares a {attribute} no sitemap can hold: {exc}"
    if attribute == "lastmod" or conf.STRICT:
        raise ImproperlyConfigured(
            f"{message}. Fix the class attribute (manage.py check names the fix)."
        ) from exc
    logger.warning("%s; every URL of the section is listed without it.", message)
    return Value()


def unreversed(exc: NoReverseMatch | UnicodeError) -> InvalidEntry:
    """Why a row's URL could not be built, as the entry's error."""
    if isinstance(exc, UnicodeError):
        # A lone surrogate cannot be percent-encoded (RFC 3986 section 2.5: UTF-8).
        return InvalidEntry(f"its URL cannot be encoded ({exc})")
    return InvalidEntry(f"its URL does not reverse ({exc})")


def hook_locator(source: BaseSource, policy: LocationPolicy) -> Callable[[Any], str]:
    """``location(row)``, the project's or the default, checked by the policy."""
    location = source.location

    def locate(row: Any) -> str:
        try:
            found = location(row)
        except (NoReverseMatch, UnicodeError) as exc:
            raise unreversed(exc) from exc
        if not isinstance(found, str):
            raise InvalidEntry(f"location {found!r} is not a string")
        return policy.absolute(found)

    return locate


def url_name_locator(
    url_name: str,
    url_kwargs: Mapping[str, str],
    read_field: Callable[[str], Reader],
    policy: LocationPolicy,
) -> Callable[[Any], str]:
    """``reverse(url_name, kwargs=...)`` per row from the plan's field readers, through a
    URL template where one provably gives ``reverse()``'s answer (``locations/templates.py``).

    Build it where ``reverse()`` would run (script prefix and language fixed).
    """
    template = UrlTemplate.compile(url_name, url_kwargs)
    fill: Callable[[dict[str, Any]], str] | None = (
        compiled_reverse(url_name, url_kwargs) if template is None else template.fill
    )
    if fill is None:

        def fill(kwargs: dict[str, Any]) -> str:
            return reverse(url_name, kwargs=kwargs)

    readers = [(kwarg, path, read_field(path)) for kwarg, path in url_kwargs.items()]

    def locate(row: Any) -> str:
        kwargs = {}
        for kwarg, path, read in readers:
            value = read(row)
            if value is None:
                raise InvalidEntry(f"URL argument {kwarg!r} (field {path!r}) is None")
            kwargs[kwarg] = value
        try:
            location = fill(kwargs)
        except (NoReverseMatch, UnicodeError) as exc:
            raise unreversed(exc) from exc
        return policy.absolute_path(location)

    if template is None:
        return locate
    slot_readers = [read_field(url_kwargs[slot.name]) for slot in template.slots]
    quick = quick_locator(
        template, slot_readers, policy.origin_url, policy.prefix, MAX_LOCATION_LENGTH, locate
    )
    return locate if quick is None else quick


@dataclass(frozen=True)
class EntryMaker:
    """A row's entry, every per-source decision made."""

    locate: Callable[[Any], str]
    lastmod: Value
    changefreq: Value
    priority: Value

    def __call__(self) -> Callable[[Any], Entry]:
        """The fastest function for this source: constants are closed over. A
        ``changefreq`` or ``priority`` read per row that is invalid is left out of
        the entry, which ``LeftOut`` carries (``optional.py``)."""
        locate = self.locate
        lastmod = self.lastmod.read or fixed(self.lastmod.constant)
        # The tuple constructor itself: Entry(...) would run a Python-level
        # __new__ for every row.
        new_entry = partial(tuple.__new__, Entry)
        if self.changefreq.read is None and self.priority.read is None:
            constants = (self.changefreq.constant, self.priority.constant, None)

            def make_fixed(row: Any) -> Entry:
                made: Entry = new_entry((locate(row), lastmod(row), *constants))
                return made

            return make_fixed
        optional = optional_pair(
            self.changefreq.read or fixed(self.changefreq.constant),
            self.priority.read or fixed(self.priority.constant),
        )

        def make(row: Any) -> Entry:
            location, date = locate(row), lastmod(row)
            try:
                changefreq, priority = optional(row)
            except LeftOut as exc:
                kept = new_entry((location, date, *exc.made, None))
                raise LeftOut(kept, exc.reasons) from None
            made: Entry = new_entry((location, date, changefreq, priority, None))
            return made

        return make


def fixed(text: str | None) -> Callable[[Any], str | None]:
    """A reader that gives ``text`` for every row."""

    def read(row: Any) -> str | None:
        return text

    return read
