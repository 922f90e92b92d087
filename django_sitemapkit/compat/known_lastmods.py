"""The ``lastmod`` of a known third-party ``Sitemap`` class, read as one aggregate.

A class whose ``lastmod(item)`` is a method is read item by item: the index
builds every item to find the newest date. Where the method is a package's own,
unchanged, and is a column of the item's row, the database answers the count and
the newest date at once. Wagtail's ``Sitemap.lastmod()`` returns
``last_published_at or latest_revision_created_at`` of a page, read after
``.specific()`` has built each page as its own type (half a second of CPU for
10,000 pages, for two columns of one table). The package is never imported here:
a class of it can only exist once it is.
"""

from __future__ import annotations

import sys
from typing import Any

from django.db.models import Count, QuerySet
from django.db.models.functions import Coalesce

from django_sitemapkit.sources.stored_lastmods import aggregate

#: The module of Wagtail's ``Sitemap`` class, and the columns its ``lastmod()`` reads.
WAGTAIL_MODULE = "wagtail.contrib.sitemaps.sitemap_generator"
WAGTAIL_LASTMOD = ("last_published_at", "latest_revision_created_at")
#: What the aggregate calls that lastmod.
LASTMOD_ALIAS = "_sitemapkit_lastmod"


def aggregated_lastmods(site: Any, items: Any, section: str) -> tuple[int, Any] | None:
    """The number of ``items`` and their newest ``lastmod(item)``, from one query, if
    ``site`` is Wagtail's ``Sitemap`` with its own ``lastmod()``; ``None`` otherwise
    (the items are then read one by one). A newest that is no date is the newest
    that is (``sources/stored_lastmods.py``)."""
    module = sys.modules.get(WAGTAIL_MODULE)
    wagtail_sitemap = getattr(module, "Sitemap", None)
    if wagtail_sitemap is None or not isinstance(site, wagtail_sitemap):
        return None
    if getattr(type(site), "lastmod", None) is not wagtail_sitemap.lastmod:
        return None
    if not isinstance(items, QuerySet):
        return None
    rows = items.order_by().annotate(**{LASTMOD_ALIAS: Coalesce(*WAGTAIL_LASTMOD)})
    found = aggregate(rows, section, LASTMOD_ALIAS, count=Count("pk"))
    return found["count"], found["lastmod"]
