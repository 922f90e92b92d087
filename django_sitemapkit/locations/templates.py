"""Locations from a URL pattern filled per row, instead of one ``reverse()`` per row.

``reverse()`` looks the name up, tries each pattern, converts and regex-matches
the arguments, and percent-encodes the result on every call: about half the
time of a sitemap page. :meth:`UrlTemplate.compile` does once the work that
gives the same answer for every row; :meth:`UrlTemplate.fill` only converts,
checks and quotes the arguments. A template is used only where it provably
gives ``reverse()``'s answer:

- the name has exactly one pattern, whose keyword arguments are the source's;
- its regular expression is exactly its literal text and one built-in
  converter's group per argument (what ``path()`` makes; ``re_path()`` and
  custom converters are left to ``reverse()``), so an argument matching its
  converter's regex makes the pattern match, and any other is handed to
  ``reverse()``, which raises or answers exactly as it always would;
- percent-encoding works character by character, so quoting the pieces one at
  a time equals quoting the joined URL, as ``reverse()`` does;
- and a probe of one value per argument must equal ``reverse()`` first.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.urls import NoReverseMatch, converters, get_script_prefix, reverse
from django.utils.http import RFC3986_SUBDELIMS, escape_leading_slashes

from django_sitemapkit.locations.resolution import only_reversal
from django_sitemapkit.locations.uris import DOT_SEGMENT

# What reverse() leaves unquoted: RFC 3986 section 3.3, "pchar".
PCHAR_SAFE = RFC3986_SUBDELIMS + "/~:@"

# Converters whose every match is plain ASCII that needs neither percent- nor
# XML-escaping, and those whose matches must still be quoted.
UNQUOTED_CONVERTERS = (converters.IntConverter, converters.SlugConverter, converters.UUIDConverter)
QUOTED_CONVERTERS = (converters.StringConverter, converters.PathConverter)
# Converters whose to_url() returns a str argument unchanged.
STRING_CONVERTERS = (converters.StringConverter, converters.SlugConverter, converters.PathConverter)

# One value per converter that its regex accepts, for the probe against reverse().
PROBE_VALUES: Mapping[type[Any], Any] = {
    converters.IntConverter: 2_718,
    converters.SlugConverter: "probe-Slug_1",
    converters.UUIDConverter: uuid.UUID("12345678-9abc-4def-8123-456789abcdef"),
    converters.StringConverter: "probe ü&'()",
    converters.PathConverter: "probe/ü &/x",
}
# Stands in for each argument while the pattern is split into literal pieces.
MARKER = "\x00"


Quick = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class Slot:
    """One keyword argument of the pattern."""

    name: str
    converter: Any
    regex: re.Pattern[str]
    quoted: bool

    def text(self, value: Any) -> str | None:
        """The argument as the pattern matches it, or ``None`` if only ``reverse()`` can tell."""
        try:
            converted = self.converter.to_url(value)
        except ValueError:
            return None
        # reverse() substitutes with "%s", that is str().
        text = str(converted)
        return None if self.regex.fullmatch(text) is None else text

    def quick(self) -> Quick:
        """``text()`` (quoted, for a quoted slot) for the values that need no converter
        call, else ``None``: a ``str`` its regex matches, a non-negative ``int`` for
        ``<int:>`` and a ``UUID`` for ``<uuid:>`` (whose ``str()`` always matches)."""
        match = self.regex.fullmatch
        kind = type(self.converter)
        if self.quoted:

            def quoted(value: Any) -> str | None:
                if type(value) is not str or match(value) is None:
                    return None
                try:
                    return quote(value, safe=PCHAR_SAFE)
                except UnicodeError:
                    return None  # reverse() raises; the general route says so

            return quoted
        if kind is converters.IntConverter:
            return lambda value: (
                str(value)
                if type(value) is int and value >= 0
                else value
                if type(value) is str and match(value) is not None
                else None
            )
        if kind is converters.UUIDConverter:
            return lambda value: (
                str(value)
                if type(value) is uuid.UUID
                else value
                if type(value) is str and match(value) is not None
                else None
            )
        return lambda value: value if type(value) is str and match(value) is not None else None


class UrlTemplate:
    """The URL of ``url_name`` as literal pieces with one slot per argument between them."""

    def __init__(self, url_name: str, pieces: tuple[str, ...], slots: tuple[Slot, ...]) -> None:
        assert len(pieces) == len(slots) + 1
        self.url_name = url_name
        self.pieces = pieces
        self.slots = slots

    def __repr__(self) -> str:
        between = zip(self.slots, self.pieces[1:], strict=True)
        shown = self.pieces[0] + "".join(f"{{{slot.name}}}{piece}" for slot, piece in between)
        return f"<UrlTemplate {self.url_name!r} {shown!r}>"

    @classmethod
    def compile(cls, url_name: str, names: Collection[str]) -> UrlTemplate | None:
        """A template equal to ``reverse(url_name, kwargs=...)`` with ``names``, if provable.

        Build it where ``reverse()`` would run: it reads the current URLconf,
        script prefix and (through the resolver) language.
        """
        template = cls._from_resolver(url_name, names)
        if template is None or not template._agrees_with_reverse():
            return None
        return template

    @classmethod
    def _from_resolver(cls, url_name: str, names: Collection[str]) -> UrlTemplate | None:
        reversal = only_reversal(url_name, names)
        if reversal is None:
            return None
        result, params, pattern, _defaults, pattern_converters = reversal
        slots = []
        for name in params:
            converter = pattern_converters.get(name)
            if type(converter) not in (*UNQUOTED_CONVERTERS, *QUOTED_CONVERTERS):
                return None
            regex = re.compile(converter.regex)
            slots.append(Slot(name, converter, regex, type(converter) in QUOTED_CONVERTERS))
        # The same substitution reverse() makes, with markers in place of the arguments.
        prefix = get_script_prefix()
        skeleton = prefix.replace("%", "%%") + result
        if MARKER in skeleton:
            return None
        filled = skeleton % dict.fromkeys(params, MARKER)
        pieces = filled.split(MARKER)
        if len(pieces) != len(slots) + 1:
            return None
        # Only a plain concatenation of literals and converter groups is handled.
        literals = [pieces[0][len(prefix) :], *pieces[1:]]
        groups = [f"(?P<{slot.name}>{slot.converter.regex})" for slot in slots]
        expected = "".join(
            re.escape(lit) + group for lit, group in zip(literals[:-1], groups, strict=True)
        )
        if expected + re.escape(literals[-1]) + r"\Z" != pattern:
            return None
        return cls(url_name, tuple(quote(piece, safe=PCHAR_SAFE) for piece in pieces), tuple(slots))

    def _agrees_with_reverse(self) -> bool:
        probe = {slot.name: PROBE_VALUES[type(slot.converter)] for slot in self.slots}
        try:
            expected = reverse(self.url_name, kwargs=probe)
        except NoReverseMatch:
            return False
        return self.fill(probe) == expected

    def fill(self, kwargs: Mapping[str, Any]) -> str:
        """What ``reverse(url_name, kwargs=kwargs)`` returns (or raises)."""
        pieces = self.pieces
        parts = [pieces[0]]
        for position, slot in enumerate(self.slots, start=1):
            text = slot.text(kwargs[slot.name])
            if text is None:
                return reverse(self.url_name, kwargs=dict(kwargs))
            parts.append(text)
            parts.append(pieces[position])
        # Quoted only once every argument matched, as reverse() does: a value
        # that cannot be encoded must not hide another that does not match.
        for position, slot in enumerate(self.slots):
            if slot.quoted:
                parts[2 * position + 1] = quote(parts[2 * position + 1], safe=PCHAR_SAFE)
        url = "".join(parts)
        # Django never returns a scheme-relative URL ("//host/...").
        return escape_leading_slashes(url) if url.startswith("//") else url


def settles_location(template: UrlTemplate, origin: str, prefix: str) -> bool:
    """Whether the URL's fixed start settles the location rule for every row whose
    arguments match their converters: ``origin`` followed by the joined pieces is then
    the row's location, as ``LocationPolicy.absolute_path()`` would give it."""
    start = template.pieces[0]
    if (
        not start.startswith("/")
        or start.startswith("//")
        or not (origin + start).startswith(prefix)
    ):
        return False
    # The pattern's own dot segments: an <int:>, <slug:> or <uuid:> value ("x") makes none.
    if DOT_SEGMENT.search("x".join(template.pieces)):
        return False
    # A path argument may itself start with "/": fill() escapes such a "//".
    slots = template.slots
    return not (start == "/" and slots and type(slots[0].converter) is converters.PathConverter)


def quick_locator(
    template: UrlTemplate,
    readers: Sequence[Callable[[Any], Any]],
    origin: str,
    prefix: str,
    max_length: int,
    general: Callable[[Any], str],
) -> Callable[[Any], str] | None:
    """A function from a row to ``origin + template.fill(...)`` that skips every
    per-row check the URL's fixed start already passed, or ``None`` where the
    start does not settle them.

    ``readers`` read each slot's value from a row, in slot order. A row whose
    values need a converter call, or whose URL would be ``max_length`` characters
    or more or hold a dot segment (a ``<str:>`` value ``..``: the policy resolves
    it), goes to ``general``. Any other row's URL is the very characters ``fill()``
    joins, and starts with ``prefix``, as the location rule wants.
    """
    if not settles_location(template, origin, prefix):
        return None
    head = origin + template.pieces[0]
    slots = template.slots
    if len(slots) == 1 and not slots[0].quoted and type(slots[0].converter) in STRING_CONVERTERS:
        return one_plain_slot(slots[0], readers[0], head, template.pieces[1], max_length, general)
    steps = list(zip(readers, [slot.quick() for slot in slots], template.pieces[1:], strict=True))

    def locate(row: Any) -> str:
        url = head
        for read, text_of, piece in steps:
            text = text_of(read(row))
            if text is None:
                return general(row)
            url += text + piece
        if len(url) < max_length and ("/." not in url or DOT_SEGMENT.search(url) is None):
            return url
        return general(row)

    return locate


def one_plain_slot(
    slot: Slot,
    read: Callable[[Any], Any],
    head: str,
    tail: str,
    max_length: int,
    general: Callable[[Any], str],
) -> Callable[[Any], str]:
    """``quick_locator()`` for the commonest URL, one ``<slug:>`` argument (no "." in
    it, so no dot segment): ``Slot.quick()`` written out, as it runs for most rows."""
    match = slot.regex.fullmatch

    def locate(row: Any) -> str:
        value = read(row)
        if type(value) is str and match(value) is not None:
            url = head + value + tail
            if len(url) < max_length:
                return url
        return general(row)

    return locate
