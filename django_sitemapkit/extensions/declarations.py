"""What a source declares for the sitemap extensions, and the protocol's limits.

:class:`Related`, :class:`Restriction`, :class:`Video` and :class:`News`, with
the limits of the protocol extensions as Google documents them
(developers.google.com/search/docs/crawling-indexing/sitemaps/*), which the
schemas in part enforce too.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from decimal import Decimal

# Google's image sitemaps: "You can include up to 1,000 <image:image> tags for
# each <url> tag."
MAX_IMAGES = 1_000
# Google News sitemaps: at most 1,000 <news:news> tags per sitemap (and only
# articles of the last two days: SITEMAPKIT_NEWS_MAX_AGE's default).
MAX_NEWS = 1_000
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

#: What each extension is written with (a key of encoding.elements.EXTENSION_NAMESPACES).
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

    #: ``"allow"`` or ``"deny"``.
    relationship: str
    #: Country codes (ISO 3166-1 alpha-2, ``"FR"``) for a restriction; ``"web"``,
    #: ``"mobile"`` or ``"tv"`` for a platform.
    values: Sequence[str]


@dataclass(frozen=True)
class Video:
    """One video of a page, as a per-row ``videos()`` method returns it."""

    #: The URL of the video's thumbnail image. Required.
    thumbnail_loc: str
    #: At most 100 characters. Required.
    title: str
    #: At most 2,048 characters. Required.
    description: str
    #: The URL of the video file; this or ``player_loc`` is required, and neither
    #: may be the page's own URL.
    content_loc: str | None = None
    #: The URL of a player for the video.
    player_loc: str | None = None
    #: Seconds (an ``int``) or a ``timedelta``; 1 to 28,800.
    duration: int | dt.timedelta | None = None
    #: After which the video is no longer available.
    expiration_date: dt.date | None = None
    #: 0.0 to 5.0.
    rating: float | Decimal | None = None
    #: How many times the video was viewed.
    view_count: int | None = None
    #: When the video was first published.
    publication_date: dt.date | None = None
    #: At most 32.
    tags: Sequence[str] = ()
    #: ``False`` for a video only for adults.
    family_friendly: bool | None = None
    #: The countries where the video may (``"allow"``) or may not (``"deny"``) be shown.
    restriction: Restriction | None = None
    #: Whether watching the video needs a subscription.
    requires_subscription: bool | None = None
    #: Who uploaded the video: at most 255 characters.
    uploader: str | None = None
    #: The URL of a page about the uploader (a path is taken on the base URL).
    uploader_info: str | None = None
    #: The platforms (``web``, ``mobile``, ``tv``) where the video may or may not play.
    platform: Restriction | None = None
    #: Whether the video is a live stream.
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

    #: The publication's name, as it appears on Google News.
    name: str
    #: The publication's language: an ISO 639 code (``"en"``), or ``zh-cn`` or ``zh-tw``.
    language: str
    #: The field path of each row's title.
    title: str
    #: The field path of each row's publication date (a date or datetime).
    publication_date: str
