"""A ``lastmod`` datetime column selected as the database's own text, and sliced.

The ORM parses a datetime into an object only for the formatter to write it
back to the second. Where the database's text of a UTC datetime has one known
shape, the query selects that text instead (``CAST(... AS TEXT)``, see
``rows.raw_values``), and a text of exactly that shape, with a real date and
time, is rewritten by slicing; any other text takes the ORM's route.

- SQLite, with ``USE_TZ``: the column holds what Django stored, ``str()`` of
  the naive UTC value (``adapt_datetimefield_value``):
  ``YYYY-MM-DD hh:mm:ss[.ffffff]``.
- MySQL and MariaDB, with ``USE_TZ``: a ``DATETIME(6)`` as it is stored, the
  UTC time, ``YYYY-MM-DD hh:mm:ss.ffffff``; its "zero date" is what mysqlclient
  gives as ``None``, and so does the ORM's route here.
- PostgreSQL, with ``USE_TZ`` and the connection in UTC (the session's
  ``TimeZone``, which Django sets): ``timestamptz`` written by the server's
  ``ISO`` ``DateStyle``, ``YYYY-MM-DD hh:mm:ss[.f{1,6}]+00``. A session in
  another zone or ``DateStyle``, a date BC, a year past 9999 or ``infinity``
  are written otherwise, and take the ORM's route.

Either text of that shape is what ``fromisoformat()`` (which ``parse_datetime()``
tries first) reads into that very date and time, in UTC; ``format_lastmod()``
writes it to the second with ``+00:00``: the same characters, sliced.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from operator import itemgetter
from typing import Any, overload

from django.utils.dateparse import parse_datetime

from django_sitemapkit.encoding.encoder import KnownNewest
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sources.stored_lastmods import formatted as formatted_lastmod

# A real day of the proleptic Gregorian calendar, year 0001-9999 (datetime has
# no year 0); 31 days in January, March, May, July, August, October and
# December, 30 in April, June, September and November, 28 in February and a
# 29th in leap years (divisible by 4, and not by 100 unless by 400); hours to
# 23, no leap second. ASCII digits only: "\d" would take other scripts' digits.
_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_DATE_TIME = (
    rf"(?!0000)(?:[0-9]{{4}}-{_DAY}|{_LEAP_YEAR}-02-29)"
    r" (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
)
#: str() of a naive datetime (SQLite): microseconds of 6 digits or none.
CANONICAL_UTC_TEXT = re.compile(_DATE_TIME + r"(?:\.[0-9]{6})?")
#: PostgreSQL's ISO text of a timestamptz in UTC: its trailing zeros of the
#: fraction dropped, and the offset in hours.
POSTGRESQL_UTC_TEXT = re.compile(_DATE_TIME + r"(?:\.[0-9]{1,6})?\+00")
#: The shape of each database's text, for the vendors whose text is read.
UTC_TEXTS = {
    "sqlite": CANONICAL_UTC_TEXT,
    "mysql": CANONICAL_UTC_TEXT,
    "postgresql": POSTGRESQL_UTC_TEXT,
}
#: The date of a text of UTC_TEXTS, and of the lastmod sliced from it.
DATE = itemgetter(slice(0, 10))
#: MySQL's "zero date", which mysqlclient reads as None (MySQLdb.times).
ZERO_DATE = "0000-00-00 00:00:00"


class UtcTextLastmod:
    """A ``lastmod`` from a database's text of a UTC datetime, formatted as ``values()``
    and ``format_lastmod()`` together would format it."""

    def __init__(self, position: int, vendor: str) -> None:
        self.position = position
        self.vendor = vendor
        self.pattern = UTC_TEXTS[vendor]

    def read(self, row: Any) -> str | None:
        text: str | None = row[self.position]
        if text is not None and self.pattern.fullmatch(text) is not None:
            return sliced(text)
        return self.general(text)

    def general(self, text: str | None) -> str | None:
        """The ORM's route: ``parse_datetime()``, naive read as UTC, then ``format_lastmod()``."""
        if text is None or (self.vendor == "mysql" and text.startswith(ZERO_DATE)):
            return None
        try:
            # The ORM's converter raises for a text that is no datetime (SQLite keeps
            # any text in the column): it refuses its entry (stored_lastmods.py).
            return formatted_lastmod(text, [as_utc_datetime], None, None)
        except InvalidEntry:
            if self.vendor != "postgresql":
                raise
            # psycopg refuses to load it (a date BC, past year 9999, infinity),
            # which failed the whole page: one entry is enough.
            raise InvalidEntry(f"lastmod {text!r} is not a datetime Python can hold") from None


class SlicedLastmods(KnownNewest):
    """The lastmods of a run of texts of the database's shape (each already written
    into its line), sliced only when asked; the newest is the newest text's: the
    slice keeps the order."""

    __slots__ = ("newest", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.newest = sliced(max(texts)) if texts else ""

    def __len__(self) -> int:
        return len(self.texts)

    def __iter__(self) -> Iterator[str]:
        return iter([sliced(text) for text in self.texts])

    def days(self) -> Iterator[str]:
        """Each lastmod's date (its first ten characters): its text's, unsliced."""
        return map(DATE, self.texts)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [sliced(text) for text in self.texts[index]]
        return sliced(self.texts[index])


def as_utc_datetime(text: str, expression: Any, connection: Any) -> dt.datetime | None:
    """The ORM's conversion of the text: ``parse_datetime()``, a naive one read as UTC."""
    value = parse_datetime(text)
    if value is not None and value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value


def sliced(text: str) -> str:
    """``format_lastmod()`` of a text of the database's shape (``UTC_TEXTS``)."""
    return f"{text[:10]}T{text[11:19]}+00:00"


def whole_seconds(joined: str, count: int) -> list[str] | None:
    """Each of ``count`` texts of ``CANONICAL_UTC_TEXT`` (joined) to the second
    with a "T", split out in C, where all have the same of its two lengths (26 with
    the microseconds, 19 without; then each has its one " " at 10 and "." at 19);
    else ``None``, and each is sliced."""
    if len(joined) == 27 * count - 1:
        return joined.replace(" ", "T").replace(".", "\n").split("\n")[::2]
    if len(joined) == 20 * count - 1:
        return joined.replace(" ", "T").split("\n")
    return None
