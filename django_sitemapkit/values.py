"""Validate and format the optional ``<url>`` values: lastmod, changefreq, priority."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils import timezone

from django_sitemapkit.exceptions import InvalidEntry

# sitemaps.org protocol, "XML tag definitions": the seven values, lower case.
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")


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
        if not isinstance(value, dt.date):
            continue
        try:
            instant = _on_utc_axis(value)
        except (OverflowError, ValueError):
            continue
        if newest_instant is None or instant > newest_instant:
            newest, newest_instant = value, instant
    return newest


def _on_utc_axis(value: dt.date) -> dt.datetime:
    # Dates count from midnight UTC, so they compare with datetimes.
    if isinstance(value, dt.datetime):
        return aware_utc(value)
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)


def http_timestamp(value: dt.date | dt.datetime) -> float:
    """Seconds since the epoch for ``Last-Modified``; a date counts from midnight UTC."""
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    return aware_utc(value).timestamp()
