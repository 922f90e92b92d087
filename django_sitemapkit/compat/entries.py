"""A contrib ``Sitemap``'s items (or the dicts its ``get_urls()`` returns) to entries:
each value read as contrib reads it, then checked and formatted by the engine, an
invalid entry skipped and logged (or raised with ``SITEMAPKIT_STRICT``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from django.db.models import Model
from django.urls import NoReverseMatch

from django_sitemapkit.conf import conf
from django_sitemapkit.encoder import Entry
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations import LocationPolicy
from django_sitemapkit.sources.entries import unreversed
from django_sitemapkit.sources.pages import LastmodValue
from django_sitemapkit.sources.skips import Tally, skip_row
from django_sitemapkit.values import format_changefreq, format_lastmod, format_priority


class Made(NamedTuple):
    """An entry, and its lastmod as the item gave it (for ``Last-Modified``)."""

    entry: Entry
    lastmod: LastmodValue | None


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


def checked_entry(
    policy: LocationPolicy, location: Any, lastmod: Any, changefreq: Any, priority: Any
) -> Made:
    if not isinstance(location, str):
        raise InvalidEntry(f"location {location!r} is not a string")
    entry = Entry(
        policy.absolute(location),
        None if lastmod is None else format_lastmod(lastmod),
        None if changefreq is None else format_changefreq(changefreq),
        priority_text(priority),
    )
    return Made(entry, lastmod)


def item_key(item: Any) -> str:
    """How a log message names an item."""
    if isinstance(item, Model):
        return f"pk={item.pk!r}"
    return f"item {item!r}"


def item_entries(
    section: str, site: Any, items: Iterable[Any], policy: LocationPolicy, tally: Tally
) -> Iterator[Made]:
    """The entries of ``items``, read through the ``Sitemap``'s attributes and methods."""
    for item in items:
        tally.rows += 1
        try:
            try:
                location = contrib_value(site, "location", item)
            except (NoReverseMatch, UnicodeError) as exc:
                raise unreversed(exc) from exc
            yield checked_entry(
                policy,
                location,
                contrib_value(site, "lastmod", item),
                contrib_value(site, "changefreq", item),
                contrib_value(site, "priority", item),
            )
        except InvalidEntry as exc:
            skip_row(section, item_key(item), str(exc), tally, conf.STRICT)


def url_entries(
    section: str,
    urls: Iterable[Mapping[str, Any]],
    policy: LocationPolicy,
    tally: Tally,
    relocate: Callable[[str], str],
) -> Iterator[Made]:
    """The entries of the dicts a ``get_urls()`` returned (``location``, ``lastmod``,
    ``changefreq``, ``priority``; ``alternates`` are not written yet), each
    location mended by ``relocate`` first."""
    for url in urls:
        tally.rows += 1
        location = url.get("location")
        if isinstance(location, str):
            location = relocate(location)
        try:
            yield checked_entry(
                policy, location, url.get("lastmod"), url.get("changefreq"), url.get("priority")
            )
        except InvalidEntry as exc:
            skip_row(section, f"URL {location!r}", str(exc), tally, conf.STRICT)
