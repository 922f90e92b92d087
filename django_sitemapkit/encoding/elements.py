"""The extension elements of a ``<url>``: alternates, images, videos and news.

The values arrive checked and formatted (by :mod:`django_sitemapkit.extensions`)
in the types defined here; these functions only write them, in schema order.
"""

from __future__ import annotations

from typing import NamedTuple

from django_sitemapkit.encoding.escaping import escape

# The extension namespaces (sitemaps.org protocol, "Extending the Sitemaps
# protocol"), by the prefix each is written with. A document declares only the
# ones its source uses.
EXTENSION_NAMESPACES = {
    "xhtml": "http://www.w3.org/1999/xhtml",
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
}


class NewsItem(NamedTuple):
    """``<news:news>``: the four values Google News reads, formatted."""

    name: str
    language: str
    publication_date: str
    title: str


class VideoItem(NamedTuple):
    """``<video:video>`` with its values formatted; ``None`` leaves an element out."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    duration: str | None = None
    expiration_date: str | None = None
    rating: str | None = None
    view_count: str | None = None
    publication_date: str | None = None
    tags: tuple[str, ...] = ()
    family_friendly: str | None = None
    #: ``(relationship, "US CA")`` for ``<video:restriction>``.
    restriction: tuple[str, str] | None = None
    requires_subscription: str | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    #: ``(relationship, "web tv")`` for ``<video:platform>``.
    platform: tuple[str, str] | None = None
    live: str | None = None


class Extras(NamedTuple):
    """The extension elements of one ``<url>``, written after ``<priority>``."""

    #: ``(hreflang, href)`` of each ``xhtml:link rel="alternate"``, the URL's own included.
    alternates: tuple[tuple[str, str], ...] = ()
    images: tuple[str, ...] = ()
    videos: tuple[VideoItem, ...] = ()
    news: NewsItem | None = None


def extension_elements(extras: Extras) -> str:
    alternates, images, videos, news = extras
    parts = [
        f'<xhtml:link rel="alternate" hreflang="{escape(hreflang)}" href="{escape(href)}"/>'
        for hreflang, href in alternates
    ]
    # Google reads <image:loc> only: caption, title, geo_location and license
    # were retired in 2022.
    parts.extend(
        f"<image:image><image:loc>{escape(loc)}</image:loc></image:image>" for loc in images
    )
    parts.extend(video_element(video) for video in videos)
    if news is not None:
        parts.append(news_element(news))
    return "".join(parts)


def news_element(news: NewsItem) -> str:
    # sitemap-news.xsd order: publication (name, language), publication_date, title.
    return (
        "<news:news><news:publication>"
        f"<news:name>{escape(news.name)}</news:name>"
        f"<news:language>{escape(news.language)}</news:language>"
        f"</news:publication><news:publication_date>{news.publication_date}"
        f"</news:publication_date><news:title>{escape(news.title)}</news:title></news:news>"
    )


def video_element(video: VideoItem) -> str:
    # sitemap-video.xsd order, which is the order of VideoItem's fields.
    parts = ["<video:video>"]
    for name in ("thumbnail_loc", "title", "description", "content_loc", "player_loc"):
        parts.append(_video_child(name, getattr(video, name)))
    for name in ("duration", "expiration_date", "rating", "view_count", "publication_date"):
        parts.append(_video_child(name, getattr(video, name)))
    parts.extend(_video_child("tag", tag) for tag in video.tags)
    parts.append(_video_child("family_friendly", video.family_friendly))
    if video.restriction is not None:
        relationship, countries = video.restriction
        parts.append(
            f'<video:restriction relationship="{relationship}">{countries}</video:restriction>'
        )
    parts.append(_video_child("requires_subscription", video.requires_subscription))
    if video.uploader is not None:
        info = "" if video.uploader_info is None else f' info="{escape(video.uploader_info)}"'
        parts.append(f"<video:uploader{info}>{escape(video.uploader)}</video:uploader>")
    if video.platform is not None:
        relationship, platforms = video.platform
        parts.append(f'<video:platform relationship="{relationship}">{platforms}</video:platform>')
    parts.append(_video_child("live", video.live))
    parts.append("</video:video>")
    return "".join(parts)


def _video_child(name: str, text: str | None) -> str:
    return "" if text is None else f"<video:{name}>{escape(text)}</video:{name}>"
