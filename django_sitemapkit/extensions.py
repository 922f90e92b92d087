"""Sitemap extensions a source declares: alternates (hreflang), images, videos and news.

Each value is checked here and formatted into the encoder's types
(:class:`~django_sitemapkit.encoder.Extras`); the encoder only writes them.
The limits are those of the protocol extensions as Google documents them
(developers.google.com/search/docs/crawling-indexing/sitemaps/*), which the
schemas in part enforce too.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import ForeignObjectRel
from django.db.models.fields.files import FieldFile, FileField
from django.utils import timezone
from django.utils.encoding import iri_to_uri

from django_sitemapkit.encoder import NewsItem, VideoItem
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations import MAX_LOCATION_LENGTH, LocationPolicy, Origin
from django_sitemapkit.uris import strict_reference, without_dot_segments
from django_sitemapkit.values import format_lastmod

# Google's image sitemaps: "You can include up to 1,000 <image:image> tags for
# each <url> tag."
MAX_IMAGES = 1_000
# Google News sitemaps: at most 1,000 <news:news> tags per sitemap, and only
# articles published in the last two days.
MAX_NEWS = 1_000
DEFAULT_NEWS_MAX_AGE = dt.timedelta(days=2)
# Google's video sitemaps, and sitemap-video.xsd.
MAX_VIDEO_TITLE = 100
MAX_VIDEO_DESCRIPTION = 2_048
MAX_VIDEO_DURATION = 28_800  # seconds: 8 hours
MAX_VIDEO_RATING = 5
MAX_VIDEO_TAGS = 32
MAX_VIDEO_UPLOADER = 255
# ISO 3166-1 alpha-2, as sitemap-video.xsd's country lists have them.
COUNTRY = re.compile(r"[A-Z]{2}")
PLATFORMS = ("web", "mobile", "tv")
RELATIONSHIPS = ("allow", "deny")

# hreflang values Google accepts: an ISO 639-1 (or 639-2) language, then an
# optional ISO 15924 script and an optional ISO 3166-1 region (or UN M.49
# number), or "x-default" (RFC 5646 section 2.1, the subset that matters here).
HREFLANG = re.compile(r"(?:[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?|x-default)")
X_DEFAULT = "x-default"
# sitemap-news.xsd: "zh-cn|zh-tw|([a-z]{2,3})".
NEWS_LANGUAGE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")

#: What each extension is written with (a key of encoder.EXTENSION_NAMESPACES).
ALTERNATES, IMAGES, VIDEOS, NEWS = "xhtml", "image", "video", "news"


class Related:
    """Values read from a relation of each row, one query per chunk of rows.

    ``images = Related("photos", loc="url")`` reads ``url`` of every ``photos``
    row of the chunk's rows in a single query (never one query per row).
    ``relation`` is a reverse foreign key or a many-to-many field of the
    source's model; each keyword names a value (``loc`` for images, a
    :class:`Video` field for videos) and gives its field path on the related
    model. A ``FileField`` is read as its storage's URL.
    """

    __slots__ = ("paths", "relation")

    def __init__(self, relation: str, **paths: str) -> None:
        self.relation = relation
        self.paths = paths

    def __repr__(self) -> str:
        arguments = "".join(f", {name}={path!r}" for name, path in self.paths.items())
        return f"Related({self.relation!r}{arguments})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Related)
            and other.relation == self.relation
            and other.paths == self.paths
        )

    def __hash__(self) -> int:
        return hash((self.relation, tuple(self.paths.items())))


@dataclass(frozen=True)
class Restriction:
    """``<video:restriction>`` or ``<video:platform>``: ``Restriction("allow", ["US", "CA"])``."""

    relationship: str
    values: Sequence[str]


@dataclass(frozen=True)
class Video:
    """One video of a page, as a per-row ``videos()`` method returns it."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    #: Seconds (an ``int``) or a ``timedelta``; 1 to 28,800.
    duration: int | dt.timedelta | None = None
    expiration_date: dt.date | None = None
    #: 0.0 to 5.0.
    rating: float | Decimal | None = None
    view_count: int | None = None
    publication_date: dt.date | None = None
    #: At most 32.
    tags: Sequence[str] = ()
    family_friendly: bool | None = None
    restriction: Restriction | None = None
    requires_subscription: bool | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    platform: Restriction | None = None
    live: bool | None = None


#: The Video fields a Related declaration may read, one column each.
VIDEO_COLUMNS = tuple(
    item.name for item in fields(Video) if item.name not in ("tags", "restriction", "platform")
)
VIDEO_REQUIRED = ("thumbnail_loc", "title", "description")


@dataclass(frozen=True)
class News:
    """``<news:news>`` for each row: a Google News sitemap section.

    ``title`` and ``publication_date`` are field paths of the row; ``name`` and
    ``language`` are the publication's, the same for every row. A source that
    declares news lists only the rows published within
    ``SITEMAPKIT_NEWS_MAX_AGE`` (two days), at most 1,000 to a page.
    """

    name: str
    language: str
    title: str
    publication_date: str


# -- values -------------------------------------------------------------------------


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

    Every href obeys the single-host rule, as ``<loc>`` does; the page itself
    must be one of them, since each version of a page lists itself and all the
    others (Google, "Tell Google about localized versions of your page").
    """
    if not isinstance(mapping, Mapping):
        raise InvalidEntry(f"alternates {mapping!r} is not a mapping of hreflang to location")
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


# -- related rows -------------------------------------------------------------------


class RelatedQuery:
    """Reads a :class:`Related` declaration's values for a chunk of rows in one query."""

    def __init__(self, model: type[models.Model], related: Related, using: str) -> None:
        relation = model._meta.get_field(related.relation)
        if isinstance(relation, ForeignObjectRel):
            # A reverse relation: the field that points here lives on the related model.
            lookup = relation.field.name
        elif isinstance(relation, models.ManyToManyField):
            lookup = relation.related_query_name()
        else:
            raise TypeError(
                f"{model.__name__}.{related.relation} is not a reverse foreign key or a "
                "many-to-many relation"
            )
        self.related_model: type[models.Model] = relation.related_model
        self.lookup = lookup
        self.names = list(related.paths)
        self.paths = list(related.paths.values())
        self.using = using
        self.converters = [file_url_converter(self.related_model, path) for path in self.paths]

    def values(self, keys: Collection[Any]) -> dict[Any, list[tuple[Any, ...]]]:
        """The related values of each key, in the related model's order (or by primary key)."""
        found: dict[Any, list[tuple[Any, ...]]] = defaultdict(list)
        if not keys:
            return found
        manager = self.related_model._default_manager.using(self.using)
        ordering = list(self.related_model._meta.ordering or ["pk"])
        rows = (
            manager.filter(**{f"{self.lookup}__in": list(keys)})
            .order_by(self.lookup, *ordering)
            .values_list(self.lookup, *self.paths)
        )
        converters = self.converters
        for key, *values in rows:
            found[key].append(
                tuple(convert(value) for convert, value in zip(converters, values, strict=True))
            )
        return found


def file_url_converter(model: type[models.Model], path: str) -> Callable[[Any], Any]:
    """The storage URL for a ``FileField`` path (the column holds only the name)."""
    target: Any = model
    found: Any = None
    for name in path.split("__"):
        found = target._meta.get_field(name)
        target = found.related_model
    if isinstance(found, FileField):
        storage = found.storage
        return lambda name: storage.url(name) if name else None
    return lambda value: value


def related_images(values: Iterable[tuple[Any, ...]]) -> list[Any]:
    return [value for (value,) in values]


def related_videos(names: Sequence[str], values: Iterable[tuple[Any, ...]]) -> list[Any]:
    return [Video(**dict(zip(names, row, strict=True))) for row in values]
