"""A row of the settings table (``conf.Settings``), and the rules a setting's values follow.

A row reads its setting live from ``django.conf.settings`` when read from the
``conf`` object, typed as its annotation in the table says. Its rule says which
values the setting accepts, in words the system checks put in their messages
(``checks/setting_values.py``); a setting whose values need more than a rule
(another setting, the database, a URL) is checked by hand and has none.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from dataclasses import dataclass, field
from typing import Generic, TypeVar, overload

from django.conf import settings

T = TypeVar("T")
#: RFC 9309 section 2.2.1: what a crawler's product token is written with.
PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]+")


@dataclass(frozen=True)
class Rule:
    """The values a setting accepts; ``None`` too where ``or_none``."""

    or_none: bool = field(default=False, kw_only=True)

    def accepts(self, value: object) -> bool:
        return self.or_none if value is None else self.fits(value)

    def fits(self, value: object) -> bool:
        raise NotImplementedError

    @property
    def expected(self) -> str:
        """What a value must be, as in "SITEMAPKIT_X is 5, not <expected>."."""
        raise NotImplementedError


@dataclass(frozen=True)
class Flag(Rule):
    def fits(self, value: object) -> bool:
        return isinstance(value, bool)

    @property
    def expected(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class WholeNumber(Rule):
    least: int
    most: int | None = None

    def fits(self, value: object) -> bool:
        # bool is an int, but True counts nothing.
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        return self.least <= value and (self.most is None or value <= self.most)

    @property
    def expected(self) -> str:
        if self.most is None:
            return f"a whole number of {self.least:,} or more"
        return f"a whole number from {self.least:,} to {self.most:,}"


@dataclass(frozen=True)
class Duration(Rule):
    allows_zero: bool = False

    def fits(self, value: object) -> bool:
        if not isinstance(value, dt.timedelta):
            return False
        return value >= dt.timedelta(0) if self.allows_zero else value > dt.timedelta(0)

    @property
    def expected(self) -> str:
        return "a timedelta of 0 or more" if self.allows_zero else "a timedelta of more than 0"


@dataclass(frozen=True)
class Seconds(Rule):
    def fits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return math.isfinite(value) and value > 0

    @property
    def expected(self) -> str:
        return "a positive number of seconds"


@dataclass(frozen=True)
class Percent(Rule):
    """A share, from 0 to 100 percent."""

    def fits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return 0 <= value <= 100  # NaN compares false: refused

    @property
    def expected(self) -> str:
        return "a number from 0 to 100"


@dataclass(frozen=True)
class Choice(Rule):
    choices: tuple[str, ...]

    def fits(self, value: object) -> bool:
        return isinstance(value, str) and value in self.choices

    @property
    def expected(self) -> str:
        written = [repr(choice) for choice in self.choices]
        if len(written) == 2:
            return " or ".join(written)
        return f"one of {', '.join(written)}"


@dataclass(frozen=True)
class Text(Rule):
    def fits(self, value: object) -> bool:
        return isinstance(value, str)

    @property
    def expected(self) -> str:
        return "a str"


@dataclass(frozen=True)
class Name(Rule):
    """A str with something in it besides whitespace."""

    def fits(self, value: object) -> bool:
        return isinstance(value, str) and bool(value.strip())

    @property
    def expected(self) -> str:
        return "a name"


@dataclass(frozen=True)
class ProductTokens(Rule):
    """A list or tuple of one or more crawlers' product tokens: letters, "_" and "-"
    (RFC 9309 section 2.2.1), such as ``"Googlebot"``."""

    def fits(self, value: object) -> bool:
        return (
            isinstance(value, (list, tuple))
            and bool(value)
            and all(isinstance(token, str) and PRODUCT_TOKEN.fullmatch(token) for token in value)
        )

    @property
    def expected(self) -> str:
        return "a list or tuple of crawlers' product tokens (letters, '_' and '-')"


@dataclass(frozen=True)
class Path(Rule):
    """A str or an ``os.PathLike`` of one: what ``open()`` takes, less bytes."""

    def fits(self, value: object) -> bool:
        return isinstance(value, (str, os.PathLike)) and isinstance(os.fspath(value), str)

    @property
    def expected(self) -> str:
        return "a path"


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One ``SITEMAPKIT_*`` setting, named by the attribute of ``conf.Settings`` it is."""

    #: The type as docs/settings.md writes it: the annotation's, as a Python expression.
    type_hint: str
    default: T
    #: The opening words of its section in docs/settings.md, in Markdown.
    doc: str
    #: The values the system checks accept; ``None`` where they are checked by hand.
    rule: Rule | None = None
    name: str = field(init=False)

    def __set_name__(self, owner: type[object], name: str) -> None:
        # Set once, as the class is made: the row stays immutable after.
        object.__setattr__(self, "name", name)

    @property
    def setting(self) -> str:
        return f"SITEMAPKIT_{self.name}"

    def raw(self) -> object:
        """The value as the project wrote it, unchecked."""
        value: object = getattr(settings, self.setting, self.default)
        return value

    @overload
    def __get__(self, instance: None, owner: type[object]) -> Setting[T]: ...

    @overload
    def __get__(self, instance: object, owner: type[object]) -> T: ...

    def __get__(self, instance: object | None, owner: type[object]) -> Setting[T] | T:
        if instance is None:
            return self
        # Typed as the table declares it; the system checks have judged the value.
        value: T = getattr(settings, self.setting, self.default)
        return value
