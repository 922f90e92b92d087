"""A chunk's ``<url>`` lines checked a column at a time, for the commonest section.

The row-by-row loop (``Writer.direct_lines``) calls a locator, a lastmod
reader and two regular expressions for every row. For a section whose URL is
a template of ``<slug:>``, ``<int:>`` or ``<uuid:>`` arguments read straight
from the cursor (no converter), whose ``lastmod`` is absent, a constant or a
column of UTC text (``text_lastmods.py``), and whose ``changefreq`` and
``priority`` are constants, each check that loop makes per row can be made
once per chunk over a whole column, in C:

- the URL's fixed start settles the single-host rule (``templates.settles_location``);
- an argument's values are all of the type the quick locator takes without a
  converter call, and all match the converter's regex (one ``fullmatch`` over
  the column joined by newlines: none of these regexes matches a newline);
- those matches are ASCII letters, digits, ``-`` and ``_`` (hex digits for a
  UUID): nothing to percent-encode, nothing to escape in XML, no invalid XML
  character, and no dot segment (a segment holding a value is never ``.`` or
  ``..``; the pattern's own segments were checked when the template was);
- the longest URL of the chunk is under the protocol's 2,048 characters;
- the lastmod texts all match the database's ``UTC_TEXTS`` shape (one ``fullmatch``
  over the joined column), so each is the W3C datetime its slice gives, in UTC
  with its offset, and the newest is not past the ``Horizon``;
- the changefreq and priority constants were validated when the plan was made.

A chunk that fails any of these is written by the row-by-row loop, which gives
each row its own outcome (written, skipped and logged, or raised in strict
mode): this path only ever writes a chunk that loop would write whole, with the
same bytes.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.urls import converters

from django_sitemapkit.encoding.encoder import Lines, optional_elements
from django_sitemapkit.encoding.escaping import escape
from django_sitemapkit.locations.policy import MAX_LOCATION_LENGTH, LocationPolicy
from django_sitemapkit.locations.templates import UrlTemplate, settles_location
from django_sitemapkit.sources.disallowed import Prefixed, robots_guard
from django_sitemapkit.sources.entries import EntryMaker
from django_sitemapkit.sources.rows import LASTMOD_TEXT, RowShape
from django_sitemapkit.sources.text_lastmods import (
    CANONICAL_UTC_TEXT,
    UTC_TEXTS,
    SlicedLastmods,
    whole_seconds,
)
from django_sitemapkit.values import Horizon


def joined_pattern(pattern: str) -> re.Pattern[str]:
    """A regex matching values of ``pattern`` joined by newlines (``pattern`` must not
    match a newline)."""
    return re.compile(f"(?:{pattern})(?:\n(?:{pattern}))*")


#: Every lastmod text of a chunk, joined, for each database whose text is read.
UTC_TEXT_COLUMNS = {vendor: joined_pattern(text.pattern) for vendor, text in UTC_TEXTS.items()}


@dataclass(frozen=True)
class Column:
    """One URL argument: where it sits in a raw row, and how a chunk of it is checked."""

    position: int
    #: The only type the quick locator takes without a converter call.
    kind: type[Any]
    #: The characters of a ``str`` argument's values, newlines added (the column is
    #: joined by them); ``None`` for ``int`` and ``UUID``.
    joined: re.Pattern[str] | None
    #: The longest text one value of this argument can have, if bounded.
    longest: int | None

    def checked(self, chunk: Sequence[Sequence[Any]]) -> list[Any] | None:
        """The argument's values in ``chunk``, or ``None`` if any needs the general route."""
        values = [row[self.position] for row in chunk]
        if set(map(type, values)) != {self.kind}:
            return None
        if self.joined is not None:
            # One class over the whole column (twice as fast as a pattern per value),
            # then: no value holds a newline, and none is empty.
            joined = "\n".join(values)
            if (
                self.joined.fullmatch(joined) is None
                or joined.count("\n") != len(values) - 1
                or "\n\n" in joined
                or joined[0] == "\n"
                or joined[-1] == "\n"
            ):
                return None
        elif self.kind is int and min(values) < 0:
            # <int:> matches digits only: a negative int goes to the converter.
            return None
        return values

    def width(self, values: list[Any]) -> int:
        if self.longest is not None:
            return self.longest
        if self.kind is int:
            return len(str(max(values)))
        return max(map(len, values))


@dataclass(frozen=True)
class BulkLines:
    """The lines of a chunk of raw rows, every check made a column at a time."""

    #: One or two URL arguments, in the template's order.
    columns: tuple[Column, ...]
    #: The escaped literal pieces of the URL, the origin first: one more than columns.
    pieces: tuple[str, ...]
    #: Where the lastmod text sits in a raw row; ``None`` for no lastmod or a constant.
    lastmod_position: int | None
    lastmod_constant: str | None
    #: What follows the lastmod: ``changefreq``, ``priority`` and ``</url>``.
    tail: str
    #: The joined lastmod texts of a chunk (``UTC_TEXT_COLUMNS``) when they are read.
    lastmod_texts: re.Pattern[str] | None = None
    #: Whether they are of two fixed lengths (``whole_seconds()``): SQLite's, MySQL's.
    split_texts: bool = False
    #: Under ``SITEMAPKIT_ROBOTS = "exclude"``: robots.txt's guard of these locations.
    robots: Prefixed | None = None

    def __call__(
        self,
        chunk: Sequence[Sequence[Any]],
        horizon: Horizon,
        refuse: Callable[[Any, str], None] | None = None,
    ) -> Lines | None:
        """The chunk's lines, or ``None`` for the row-by-row loop; each row robots.txt
        disallows left out, given to ``refuse`` with the reason (only once the chunk
        is known to be taken)."""
        if not chunk:
            return [], []
        values = []
        for column in self.columns:
            found = column.checked(chunk)
            if found is None:
                return None
            values.append(found)
        widths = sum(c.width(v) for c, v in zip(self.columns, values, strict=True))
        if sum(map(len, self.pieces)) + widths >= MAX_LOCATION_LENGTH:
            return None
        # One comparison with the Horizon for the chunk: the row-by-row loop looks closer.
        latest, constant = horizon.latest[1], self.lastmod_constant
        read, lastmods = None, None
        if self.lastmod_position is None:
            if constant is not None and constant > latest:
                return None
        else:
            read = self.texts(chunk)
            lastmods = None if read is None else SlicedLastmods(read[0])
            if read is None or lastmods is None or lastmods.newest > latest:
                return None
            values.append(read[0])
        if self.robots is not None:
            # Only now that the chunk is taken are the rows robots.txt disallows refused.
            values = self.robots.allowed(chunk, values, refuse)
        if read is None or lastmods is None:
            return self.fixed_lines(values, constant), [constant] * len(values[0])
        *values, texts = values
        joined = read[1]
        if texts is not read[0]:
            joined, lastmods = "\n".join(texts), SlicedLastmods(texts)
        return self.dated_lines(values, texts, joined), lastmods

    def fixed_lines(self, values: list[list[Any]], lastmod: str | None) -> list[str]:
        # f-strings of locals: the cheapest way Python joins a row's pieces.
        pieces = self.pieces
        start, end = "<url><loc>" + pieces[0], pieces[-1] + "</loc>"
        if lastmod is not None:
            end += "<lastmod>" + lastmod + "</lastmod>"
        end += self.tail
        if len(values) == 1:
            return [f"{start}{v}{end}" for v in values[0]]
        middle = pieces[1]
        return [f"{start}{a}{middle}{b}{end}" for a, b in zip(*values, strict=True)]

    def dated_lines(self, values: list[list[Any]], texts: list[str], joined: str) -> list[str]:
        """Each line with its lastmod sliced from its text in place (``text_lastmods.sliced``)."""
        pieces = self.pieces
        start, end = "<url><loc>" + pieces[0], pieces[-1] + "</loc><lastmod>"
        tail = "+00:00</lastmod>" + self.tail
        seconds = whole_seconds(joined, len(texts)) if self.split_texts else None
        if seconds is not None:
            if len(values) == 1:
                return [
                    f"{start}{v}{end}{d}{tail}" for v, d in zip(values[0], seconds, strict=True)
                ]
            middle = pieces[1]
            return [
                f"{start}{a}{middle}{b}{end}{d}{tail}"
                for a, b, d in zip(*values, seconds, strict=True)
            ]
        if len(values) == 1:
            return [
                f"{start}{v}{end}{t[:10]}T{t[11:19]}{tail}"
                for v, t in zip(values[0], texts, strict=True)
            ]
        middle = pieces[1]
        first, second = values
        return [
            f"{start}{a}{middle}{b}{end}{t[:10]}T{t[11:19]}{tail}"
            for a, b, t in zip(first, second, texts, strict=True)
        ]

    def texts(self, chunk: Sequence[Sequence[Any]]) -> tuple[list[str], str] | None:
        """The chunk's lastmod texts, and joined, if every one has the database's shape
        (``UTC_TEXTS``): else the row-by-row loop tells each row's outcome."""
        texts = [row[self.lastmod_position] for row in chunk]  # type: ignore[index]
        try:
            joined = "\n".join(texts)
        except TypeError:  # a NULL (or any other type) among them
            return None
        if self.lastmod_texts is None or self.lastmod_texts.fullmatch(joined) is None:
            return None
        return texts, joined


#: For each string converter, the regex Django gives it, and the values of it this
#: path takes: letters, digits, "-" and "_" (and "~" where the value is quoted):
#: unreserved characters (RFC 3986 section 2.3), which quote() leaves as they are,
#: nothing XML escapes, no "/" and no ".": no segment of the URL holding one is a
#: dot segment. Any other value, or a converter whose regex differs, goes row by row.
STRING_ARGUMENTS: Mapping[type[Any], tuple[str, str]] = {
    converters.SlugConverter: ("[-a-zA-Z0-9_]+", "[-a-zA-Z0-9_\n]+"),
    converters.StringConverter: ("[^/]+", "[-a-zA-Z0-9_~\n]+"),
    converters.PathConverter: (".+", "[-a-zA-Z0-9_~\n]+"),
}


def argument_column(converter: Any, position: int) -> Column | None:
    """How a chunk of one URL argument is checked, if its converter's values can be."""
    kind = type(converter)
    if kind in STRING_ARGUMENTS:
        regex, taken = STRING_ARGUMENTS[kind]
        return Column(position, str, re.compile(taken), None) if converter.regex == regex else None
    if kind is converters.IntConverter:
        return Column(position, int, None, None)
    if kind is converters.UUIDConverter:
        # str() of a UUID: 36 characters of hex digits and "-".
        return Column(position, uuid.UUID, None, 36)
    return None


def bulk_lines(
    url_name: str,
    url_kwargs: Mapping[str, str],
    shape: RowShape,
    policy: LocationPolicy,
    maker: EntryMaker,
) -> BulkLines | None:
    """The bulk path of a section whose entries ``maker`` makes, or ``None`` where its
    rows need the row-by-row loop. Build it where the maker's locator was built (the
    script prefix and language ``reverse()`` reads)."""
    lastmod, changefreq, priority = maker.lastmod, maker.changefreq, maker.priority
    from_text = lastmod.read is not None
    if (
        changefreq.read is not None
        or priority.read is not None
        or (from_text and LASTMOD_TEXT not in shape.positions)
    ):
        return None
    template = UrlTemplate.compile(url_name, url_kwargs)
    if (
        template is None
        or len(template.slots) not in (1, 2)
        or not settles_location(template, policy.origin_url, policy.prefix)
    ):
        return None
    columns = []
    for slot in template.slots:
        path = url_kwargs[slot.name]
        if path not in shape.positions or path in shape.converters:
            return None
        column = argument_column(slot.converter, shape.positions[path])
        if column is None:
            return None
        columns.append(column)
    pieces = (policy.origin_url + template.pieces[0], *template.pieces[1:])
    guard = robots_guard(policy.origin)
    robots = None if guard is None else guard.under(pieces)
    if guard is not None and robots is None:
        return None
    return BulkLines(
        tuple(columns),
        tuple(map(escape, pieces)),
        shape.positions[LASTMOD_TEXT] if from_text else None,
        lastmod.constant,
        optional_elements(changefreq.constant, priority.constant),
        UTC_TEXT_COLUMNS[shape.connection.vendor] if from_text else None,
        from_text and UTC_TEXTS[shape.connection.vendor] is CANONICAL_UTC_TEXT,
        robots,
    )
