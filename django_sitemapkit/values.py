"""Validate and format the optional ``<url>`` values: lastmod, changefreq, priority."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils import timezone

from django_sitemapkit.exceptions import InvalidEntry

# sitemaps.org protocol, "XML tag definitions": the seven values, lower case.
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
#: How far past this server's clock a lastmod may be and still be written: the clock
#: of the database, or of the server that saved the row, may run ahead of this one.
#: Five minutes is the skew Kerberos tolerates by default (MIT krb5's clockskew).
LASTMOD_SKEW = dt.timedelta(minutes=5)
#: A date has no time zone (W3C Datetime): it is in the future only once no place
#: has reached it, and UTC+14 (Kiribati's Line Islands) reaches each day first.
EARLIEST_ZONE = dt.timedelta(hours=14)


def aware_utc(value: dt.datetime) -> dt.datetime:
    """Return ``value`` in UTC; a naive value is read in the project's time zone."""
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_default_timezone())
    return value.astimezone(dt.timezone.utc)


def format_lastmod(value: Any) -> str:
    """W3C Datetime in one of the two forms every consumer accepts.

    ``YYYY-MM-DD`` for a date, ``YYYY-MM-DDThh:mm:ss+00:00`` for a datetime:
    the schema rejects minutes without seconds, and a time without a zone is
    ambiguous (W3C Datetime note), so datetimes are written in UTC, to the
    second.
    """
    if isinstance(value, dt.datetime):
        if type(value) is dt.datetime and value.tzinfo is dt.timezone.utc:
            # What the database hands back with USE_TZ: already UTC, so only
            # the microseconds go (the general route below gives the same).
            return value.isoformat(timespec="seconds")
        try:
            utc = aware_utc(value)
        except (OverflowError, ValueError) as exc:
            raise InvalidEntry(f"lastmod {value!r} cannot be expressed in UTC") from exc
        # isoformat() pads the year to four digits; strftime("%Y") may not.
        return utc.replace(microsecond=0, tzinfo=None).isoformat() + "+00:00"
    if isinstance(value, dt.date):
        return value.isoformat()
    raise InvalidEntry(f"lastmod {value!r} is not a date or datetime")


def parse_lastmod(text: str) -> dt.date:
    """A lastmod as ``format_lastmod()`` writes it, read back (``ValueError`` otherwise)."""
    return dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)


class Horizon:
    """The latest ``lastmod`` that may be written now, as ``format_lastmod()`` writes
    one: a datetime up to ``LASTMOD_SKEW`` past the clock, a date some place has
    reached. Bing's webmaster guidance refuses dates in the future, and counts them
    against a sitemap's other dates: a later value is no date at all.

    Kept as text, so that a written value is compared with one string comparison;
    one that passes it moves it to the clock again first (once a second at most),
    so a long build or response never leaves out the date of a row saved while it
    ran. ``at``, a moment, fixes it there instead.
    """

    __slots__ = ("latest", "moving", "next_look")

    def __init__(self, at: dt.datetime | None = None) -> None:
        self.moving = at is None
        self.next_look = 0.0
        self.latest = self.limits(at or dt.datetime.now(dt.timezone.utc))

    @staticmethod
    def limits(now: dt.datetime) -> tuple[str, str]:
        """(the latest date, the latest datetime) written at ``now``; past year 9999,
        the last of each (a manifest's moment is read from outside the process)."""
        try:
            latest = aware_utc(now) + LASTMOD_SKEW
        except OverflowError:
            latest = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
        moment = latest.replace(microsecond=0, tzinfo=None).isoformat() + "+00:00"
        try:
            day = (latest + EARLIEST_ZONE).date()
        except OverflowError:
            day = dt.date.max
        return day.isoformat(), moment

    def passed(self, text: str) -> bool:
        """Whether the written lastmod ``text`` is later than may be written now."""
        # A date is 10 characters; "2024-05-02" > "2024-05-01T..." as text, so
        # a datetime's limit (the first test) lets no date through unchecked.
        if text <= self.latest[1]:
            return False
        limit = self.latest[0] if len(text) == 10 else self.latest[1]
        if text > limit and self.moving and time.monotonic() >= self.next_look:
            self.next_look = time.monotonic() + 1
            self.latest = self.limits(dt.datetime.now(dt.timezone.utc))
            limit = self.latest[0] if len(text) == 10 else self.latest[1]
        return text > limit


def format_changefreq(value: Any) -> str:
    if value not in CHANGEFREQS or not isinstance(value, str):
        raise InvalidEntry(f"changefreq {value!r} is not one of {', '.join(CHANGEFREQS)}")
    return value


def format_priority(value: Any) -> str:
    """A decimal from 0.0 to 1.0, never in exponent form (``xsd:decimal``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise InvalidEntry(f"priority {value!r} is not a number")
    # A Decimal NaN raises on comparison where a float NaN compares false.
    if isinstance(value, Decimal) and value.is_nan():
        raise InvalidEntry(f"priority {value!r} is not a number")
    # Written so that a float NaN fails too.
    if not 0 <= value <= 1:
        raise InvalidEntry(f"priority {value!r} is outside 0.0 to 1.0")
    # "+ 0.0" turns -0.0 (which passes the test above) into 0.0: "-0.0" is a
    # valid xsd:decimal, but a sign no reader expects in a priority.
    text = f"{float(value) + 0.0:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def newest_lastmod(values: Iterable[Any]) -> dt.date | None:
    """The newest of a mix of dates and datetimes; anything else is ignored, and so is
    a value that cannot be expressed in UTC (no entry could be written with it)."""
    newest, newest_instant = None, None
    for value in values:
        if value.__class__ is dt.datetime and value.tzinfo is dt.timezone.utc:
            # Already its UTC instant, as the database returns datetimes under
            # USE_TZ: the conversion below took a tenth of the time of a sitemap
            # index of 2,000 dated pages.
            instant = value
        elif isinstance(value, dt.date):
            try:
                instant = utc_instant(value)
            except (OverflowError, ValueError):
                continue
        else:
            continue
        if newest_instant is None or instant > newest_instant:
            newest, newest_instant = value, instant
    return newest


def utc_instant(value: dt.date) -> dt.datetime:
    # Dates count from midnight UTC, so they compare with datetimes.
    if type(value) is dt.datetime and value.tzinfo is dt.timezone.utc:
        return value  # what the database hands back with USE_TZ: already the instant
    if isinstance(value, dt.datetime):
        return aware_utc(value)
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)


def http_timestamp(value: dt.date | dt.datetime) -> float:
    """Seconds since the epoch for ``Last-Modified``; a date counts from midnight UTC."""
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    return aware_utc(value).timestamp()
