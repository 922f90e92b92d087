"""A contrib class's lastmods as contrib's views read them: a naive datetime is
in UTC, and a document's ``Last-Modified`` is the newest only when every URL
has one."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from django_sitemapkit.sources.pages import LastmodValue
from django_sitemapkit.values import newest_lastmod


def contrib_lastmod(value: Any) -> Any:
    """A lastmod as contrib reads it: a naive datetime is in UTC (its views'
    ``_get_latest_lastmod()``), not in ``TIME_ZONE`` as elsewhere in Django."""
    if type(value) is dt.datetime and value.tzinfo is dt.timezone.utc:
        return value  # what the database hands back with USE_TZ: nothing to ask
    if isinstance(value, dt.datetime) and timezone.is_naive(value):
        return value.replace(tzinfo=dt.timezone.utc)
    return value


def every_lastmod(values: Iterable[LastmodValue | None]) -> LastmodValue | None:
    """The newest of ``values`` if none is missing: contrib sends ``Last-Modified``
    only when every URL of the page has a lastmod."""
    return newest_of(values)[0]


def newest_of(
    values: Iterable[Any],
) -> tuple[LastmodValue | None, LastmodValue | None]:
    """``every_lastmod(values)``, and the newest of the values that are not ``None``,
    each read as ``contrib_lastmod()`` reads it: one pass, nothing kept but the two
    answers. Datetimes in UTC, what the database hands back with ``USE_TZ``, are
    compared as they are (an index reads a value per item); any other value
    takes ``newest_lastmod()``'s rule. A value that is no date is missing: its
    URL is written without it (``entries.py``)."""
    missing = False
    newest: LastmodValue | None = None
    other: LastmodValue | None = None
    for value in values:
        if value is None or not isinstance(value, dt.date):
            missing = True
        elif type(value) is dt.datetime and value.tzinfo is dt.timezone.utc:
            if newest is None or value > newest:
                newest = value
        else:
            other = newest_lastmod((other, contrib_lastmod(value)))
    if other is not None:
        newest = newest_lastmod((newest, other))
    return (None if missing else newest), newest
