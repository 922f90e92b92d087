"""A declared ``canonical``: a row whose canonical URL is set, and is not one of its own
locations, is not listed.

A canonical value is "set" unless it is NULL or ``""``. It is the row's own
when it equals, character for character, one of the row's locations, written
absolute (``https://www.example.com/articles/a/``) or as its path
(``/articles/a/``, which a page's ``<link rel="canonical">`` may hold and a
browser resolves against the page's own origin). An ``i18n`` row has one
location per language and keeps any one of them as its canonical.

In SQL where the location provably is a concatenation the database can
write: the location comes from ``url_name`` through a URL template
(``locations/templates.py``) in every language, the template's start settles
the location rule, and every argument is an ``<int:>`` or ``<slug:>`` one read
from an integer or a text column (their matching values are written as the
column's own text, needing no percent-encoding). A row whose value matches
no converter never reverses, and is skipped either way. Anywhere else
(``location()``, ``get_absolute_url()``, ``<str:>``, ``<path:>``, ``<uuid:>``,
``re_path()``), each row is compared as it is written, and one kept out is
skipped and logged (``skips.py``): its page then lists fewer URLs than it has
rows, as with any skipped row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, fields, replace
from typing import Any

from django.db import models
from django.db.models import F, Q, QuerySet, TextField, Value
from django.db.models.functions import Cast, Concat
from django.urls import converters
from django.utils import translation

from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.locations.templates import UrlTemplate, settles_location
from django_sitemapkit.sources.declaration import Declaration
from django_sitemapkit.sources.extended import Extender, LanguageEntries
from django_sitemapkit.sources.lastmods import selected_field
from django_sitemapkit.sources.skips import Excluded
from django_sitemapkit.sources.writer import Writer

#: Converters whose matching values are their own text in a URL: no percent-encoding.
SQL_CONVERTERS = (converters.IntConverter, converters.SlugConverter)
#: Checks one row against its locations; raises ``Excluded`` if it is kept out.
RowCheck = Callable[[Any, Sequence[str]], None]


def is_text(field: object) -> bool:
    return isinstance(field, (models.CharField, models.TextField))


def slot_text(queryset: QuerySet[Any], path: str) -> Any:
    """The column of ``path`` as the text ``str()`` gives of its value, or ``None`` if
    SQL cannot be shown to write it so (a date, a UUID, a float...)."""
    field = selected_field(queryset, path)
    if is_text(field):
        return F(path)
    if isinstance(field, models.IntegerField):
        # CAST of an integer writes its decimal digits, with "-" if negative, as str().
        return Cast(path, output_field=TextField())
    return None


def joined(parts: Sequence[Any]) -> Any:
    """The SQL concatenation of literal text and columns."""
    present = [Value(part) if isinstance(part, str) else part for part in parts if part != ""]
    if len(present) == 1:
        return present[0]
    return Concat(*present, output_field=TextField())


def template_locations(
    template: UrlTemplate,
    queryset: QuerySet[Any],
    url_kwargs: Mapping[str, str],
    policy: LocationPolicy,
) -> tuple[Any, Any] | None:
    """A row's location as SQL, absolute and as its path, or ``None`` if not provable."""
    if not settles_location(template, policy.origin_url, policy.prefix):
        return None
    texts = []
    for slot in template.slots:
        text = slot_text(queryset, url_kwargs[slot.name])
        if type(slot.converter) not in SQL_CONVERTERS or text is None:
            return None
        texts.append(text)
    path = [template.pieces[0]]
    for text, piece in zip(texts, template.pieces[1:], strict=True):
        path += [text, piece]
    return joined([policy.origin_url, *path]), joined(path)


def canonical_rows(
    declaration: Declaration,
    queryset: QuerySet[Any],
    policy: LocationPolicy,
    languages: Sequence[str | None],
    located_by_hook: bool,
) -> Q | None:
    """The rows the declared ``canonical`` keeps, as a condition, or ``None`` where
    only the rows' written locations can tell. Compile it where ``reverse()`` would
    run (``entry_context()``), as the plan's locators are."""
    path = declaration["canonical"]
    url_name = declaration["url_name"]
    if located_by_hook or url_name is None:
        return None
    kept = Q(**{f"{path}__isnull": True}) | Q(**{path: ""})
    for language in languages:
        # A URL template is compiled per language (the resolver's language prefix).
        with nullcontext() if language is None else translation.override(language):
            template = UrlTemplate.compile(url_name, declaration["url_kwargs"])
        found = None
        if template is not None:
            found = template_locations(template, queryset, declaration["url_kwargs"], policy)
        if found is None:
            return None
        kept |= Q(**{path: found[0]}) | Q(**{path: found[1]})
    return kept


def row_check(read: Callable[[Any], Any], policy: LocationPolicy) -> RowCheck:
    """Raises ``Excluded`` for a row whose canonical value is set and none of its
    ``locations`` (each absolute, on the site's origin) nor their paths."""
    start = len(policy.origin_url)

    def check(row: Any, locations: Sequence[str]) -> None:
        value = read(row)
        if value is None or value == "":
            return
        for location in locations:
            if value == location or value == location[start:]:
                return
        raise Excluded(f"its canonical URL {value!r:.200} is not its own location")

    return check


@dataclass(frozen=True)
class CanonicalExtender(Extender):
    """An extender that compares the row's locations in every language with its
    canonical value before anything else of the row is read."""

    check: RowCheck

    def language_entries(self, row: Any, left_out: list[tuple[str, str]]) -> LanguageEntries:
        made = super().language_entries(row, left_out)
        self.check(row, [entry.loc for _, entry in made])
        return made


def checked_writer(writer: Writer, check: RowCheck) -> Writer:
    """``writer``, comparing each row's locations with its canonical value."""
    extender = writer.extender
    if extender is not None:
        values = {field.name: getattr(extender, field.name) for field in fields(extender)}
        return replace(writer, extender=CanonicalExtender(**values, check=check))
    locate = writer.maker.locate

    def located(row: Any) -> str:
        location = locate(row)
        check(row, (location,))
        return location

    maker = replace(writer.maker, locate=located)
    make: Callable[[Any], Entry] = maker()
    # Each row is compared: no chunk is written in bulk (bulk.py).
    return replace(writer, maker=maker, make=make, bulk=None)
