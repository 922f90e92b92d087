"""The extension values of a row, checked and formatted as the encoder writes them.

Each value is checked against the protocol's rules (see ``declarations``) and
formatted into :mod:`~django_sitemapkit.encoding.elements`' types; a value
that breaks a rule raises :class:`~django_sitemapkit.exceptions.InvalidEntry`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from django.db.models.fields.files import FieldFile
from django.utils import timezone
from django.utils.encoding import iri_to_uri

from django_sitemapkit.encoding.elements import NewsItem, VideoItem
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions.declarations import (
    COUNTRY,
    HREFLANG,
    MAX_VIDEO_DESCRIPTION,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_RATING,
    MAX_VIDEO_TAGS,
    MAX_VIDEO_TITLE,
    MAX_VIDEO_UPLOADER,
    PLATFORMS,
    RELATIONSHIPS,
    X_DEFAULT,
    News,
    Restriction,
    Video,
)
from django_sitemapkit.locations.policy import MAX_LOCATION_LENGTH, LocationPolicy
from django_sitemapkit.locations.uris import strict_reference, without_dot_segments
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.values import format_lastmod


def resource_url(value: Any, origin: Origin, what: str) -> str:
    """An absolute http(s) URL for an image or a video's files; a path is taken
    on the base URL's host. Unlike ``<loc>``, these may be on any host (a CDN).
    The path is written without dot segments, as a crawler would request it."""
    if isinstance(value, FieldFile):
        value = value.url if value else None
    if not isinstance(value, str) or not value:
        raise InvalidEntry(f"{what} {value!r} is not a URL")
    try:
        uri = iri_to_uri(value)
    except UnicodeError as exc:
        raise InvalidEntry(f"{what} {value!r} is not valid Unicode") from exc
    if uri.startswith("/") and not uri.startswith("//"):
        url = origin.url + without_dot_segments(strict_reference(uri))
    else:
        scheme, _, rest = uri.partition("://")
        if scheme.lower() not in ("http", "https") or not rest or rest.startswith("/"):
            raise InvalidEntry(f"{what} {value!r} is not an absolute http(s) URL or a path")
        host, slash, path = rest.partition("/")
        if "@" in host or any(char in host for char in "?#\\"):
            raise InvalidEntry(f"{what} {value!r} has credentials or a malformed host")
        url = f"{scheme.lower()}://{host}{without_dot_segments(strict_reference(slash + path))}"
    if len(url) >= MAX_LOCATION_LENGTH:
        raise InvalidEntry(f"{what} of {len(url):,} characters is too long: {url[:80]!r}...")
    return url


def text_value(value: Any, what: str, max_length: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidEntry(f"{what} {value!r} is empty or not text")
    # XML 1.0 section 2.2: these characters cannot appear in a document at all.
    if _NOT_XML(value) is not None:
        raise InvalidEntry(f"{what} {value!r} holds a character XML cannot carry")
    if max_length is not None and len(value) > max_length:
        raise InvalidEntry(f"{what} of {len(value):,} characters is longer than {max_length:,}")
    return value


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]").search


def yes_no(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        raise InvalidEntry(f"{what} {value!r} is not True, False or None")
    return "yes" if value else "no"


def date_value(value: Any, what: str) -> str | None:
    if value is None:
        return None
    try:
        return format_lastmod(value)
    except InvalidEntry as exc:
        raise InvalidEntry(f"{what} {value!r} is not a date or datetime") from exc


def duration_value(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.timedelta):
        seconds = value.total_seconds()
        if seconds != int(seconds):
            raise InvalidEntry(f"video duration {value!r} is not a whole number of seconds")
        value = int(seconds)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEntry(f"video duration {value!r} is not a number of seconds")
    if not 1 <= value <= MAX_VIDEO_DURATION:
        raise InvalidEntry(
            f"video duration {value!r} is outside 1 to {MAX_VIDEO_DURATION:,} seconds"
        )
    return str(value)


def rating_value(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise InvalidEntry(f"video rating {value!r} is not a number")
    number = float(value)
    if math.isnan(number) or not 0 <= number <= MAX_VIDEO_RATING:
        raise InvalidEntry(f"video rating {value!r} is outside 0.0 to {MAX_VIDEO_RATING}.0")
    return f"{number + 0.0:.1f}"


def view_count_value(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidEntry(f"video view_count {value!r} is not a non-negative integer")
    return str(value)


def restriction_value(
    value: Restriction | None, what: str, allowed: Callable[[str], bool]
) -> tuple[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Restriction) or value.relationship not in RELATIONSHIPS:
        raise InvalidEntry(f"video {what} {value!r} is not a Restriction('allow' or 'deny', ...)")
    values = [value.values] if isinstance(value.values, str) else list(value.values)
    if not values or not all(isinstance(item, str) and allowed(item) for item in values):
        raise InvalidEntry(f"video {what} {value!r} lists an invalid value")
    return value.relationship, " ".join(values)


def is_country(code: str) -> bool:
    return COUNTRY.fullmatch(code) is not None


def format_video(video: Any, origin: Origin, loc: str) -> VideoItem:
    """A :class:`Video` checked against Google's rules, as the encoder writes it."""
    if not isinstance(video, Video):
        raise InvalidEntry(f"video {video!r} is not a django_sitemapkit.Video")
    content = player = None
    if video.content_loc is not None:
        content = resource_url(video.content_loc, origin, "video content_loc")
    if video.player_loc is not None:
        player = resource_url(video.player_loc, origin, "video player_loc")
    if content is None and player is None:
        raise InvalidEntry("video has neither content_loc nor player_loc")
    # Google: the content and player URLs "must not be the same as the <loc> URL".
    if loc in (content, player):
        raise InvalidEntry(f"video content_loc or player_loc is the page's own URL {loc!r}")
    tags = tuple(video.tags)
    if len(tags) > MAX_VIDEO_TAGS:
        raise InvalidEntry(f"video has {len(tags)} tags; at most {MAX_VIDEO_TAGS} are allowed")
    return VideoItem(
        thumbnail_loc=resource_url(video.thumbnail_loc, origin, "video thumbnail_loc"),
        title=text_value(video.title, "video title", MAX_VIDEO_TITLE),
        description=text_value(video.description, "video description", MAX_VIDEO_DESCRIPTION),
        content_loc=content,
        player_loc=player,
        duration=duration_value(video.duration),
        expiration_date=date_value(video.expiration_date, "video expiration_date"),
        rating=rating_value(video.rating),
        view_count=view_count_value(video.view_count),
        publication_date=date_value(video.publication_date, "video publication_date"),
        tags=tuple(text_value(tag, "video tag") for tag in tags),
        family_friendly=yes_no(video.family_friendly, "video family_friendly"),
        restriction=restriction_value(video.restriction, "restriction", is_country),
        requires_subscription=yes_no(video.requires_subscription, "video requires_subscription"),
        uploader=None
        if video.uploader is None
        else text_value(video.uploader, "video uploader", MAX_VIDEO_UPLOADER),
        uploader_info=None
        if video.uploader_info is None
        else resource_url(video.uploader_info, origin, "video uploader_info"),
        platform=restriction_value(video.platform, "platform", PLATFORMS.__contains__),
        live=yes_no(video.live, "video live"),
    )


def format_news(news: News, title: Any, published: Any) -> NewsItem:
    if published is None:
        raise InvalidEntry("news publication_date is None")
    return NewsItem(
        name=news.name,
        language=news.language,
        publication_date=date_value(published, "news publication_date") or "",
        title=text_value(title, "news title"),
    )


def format_alternates(
    mapping: Any, loc: str, policy: LocationPolicy
) -> tuple[tuple[str, str], ...]:
    """A per-row ``alternates()`` mapping of hreflang to location, checked.

    An empty mapping lists none. Every href obeys the single-host rule, as ``<loc>``
    does; the page itself must be one of them, since each version of a page lists itself and all the
    others (Google, "Tell Google about localized versions of your page").
    """
    if not isinstance(mapping, Mapping):
        raise InvalidEntry(f"alternates {mapping!r} is not a mapping of hreflang to location")
    if not mapping:
        return ()  # a page with no other version: nothing to link
    links = []
    for hreflang, location in mapping.items():
        if not isinstance(hreflang, str) or HREFLANG.fullmatch(hreflang) is None:
            raise InvalidEntry(f"hreflang {hreflang!r} is not a language code or 'x-default'")
        if not isinstance(location, str):
            raise InvalidEntry(f"alternate for {hreflang!r} {location!r} is not a string")
        links.append((hreflang, policy.absolute(location)))
    if not any(href == loc for hreflang, href in links if hreflang != X_DEFAULT):
        raise InvalidEntry(
            f"alternates do not list the page itself ({loc!r}); every version of a page "
            "must list itself and all the others"
        )
    return tuple(links)


def news_cutoff(max_age: dt.timedelta) -> dt.datetime:
    return timezone.now() - max_age
