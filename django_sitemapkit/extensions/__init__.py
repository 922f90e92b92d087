"""Sitemap extensions a source declares: alternates (hreflang), images, videos and news.

``declarations`` (what a source declares, and the protocol's limits) →
``values`` (each value checked and formatted into the encoder's types, which
:mod:`~django_sitemapkit.encoding.elements` writes) and ``related`` (the
values of a :class:`Related` declaration, read in one query per chunk of rows).
Every name is re-exported here, so ``extensions.X`` reads as before.
"""

from __future__ import annotations

from django_sitemapkit.extensions.declarations import (
    ALTERNATES,
    COUNTRY,
    HREFLANG,
    IMAGES,
    MAX_IMAGES,
    MAX_NEWS,
    MAX_VIDEO_DESCRIPTION,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_RATING,
    MAX_VIDEO_TAGS,
    MAX_VIDEO_TITLE,
    MAX_VIDEO_UPLOADER,
    NEWS,
    NEWS_LANGUAGE,
    PLATFORMS,
    RELATIONSHIPS,
    VIDEO_COLUMNS,
    VIDEO_REQUIRED,
    VIDEOS,
    X_DEFAULT,
    News,
    Related,
    Restriction,
    Video,
)
from django_sitemapkit.extensions.related import (
    RelatedQuery,
    file_url_converter,
    related_images,
    related_videos,
)
from django_sitemapkit.extensions.values import (
    date_value,
    duration_value,
    format_alternates,
    format_news,
    format_video,
    is_country,
    news_cutoff,
    rating_value,
    resource_url,
    restriction_value,
    text_value,
    view_count_value,
    yes_no,
)

__all__ = [
    "ALTERNATES",
    "COUNTRY",
    "HREFLANG",
    "IMAGES",
    "MAX_IMAGES",
    "MAX_NEWS",
    "MAX_VIDEO_DESCRIPTION",
    "MAX_VIDEO_DURATION",
    "MAX_VIDEO_RATING",
    "MAX_VIDEO_TAGS",
    "MAX_VIDEO_TITLE",
    "MAX_VIDEO_UPLOADER",
    "NEWS",
    "NEWS_LANGUAGE",
    "PLATFORMS",
    "RELATIONSHIPS",
    "VIDEOS",
    "VIDEO_COLUMNS",
    "VIDEO_REQUIRED",
    "X_DEFAULT",
    "News",
    "Related",
    "RelatedQuery",
    "Restriction",
    "Video",
    "date_value",
    "duration_value",
    "file_url_converter",
    "format_alternates",
    "format_news",
    "format_video",
    "is_country",
    "news_cutoff",
    "rating_value",
    "related_images",
    "related_videos",
    "resource_url",
    "restriction_value",
    "text_value",
    "view_count_value",
    "yes_no",
]
