"""A ``django.contrib.sitemaps`` class, kept as a project has it, to show the path
from contrib to django-sitemapkit (docs/migrating.md):

1. served as it is by the drop-in views (``django_sitemapkit.compat``);
2. registered as a section of this app (``compat.register()`` in
   ``blog/sitemaps.py``): at ``/sitemap-categories-1.xml``, in the index, the
   HTML sitemap and ``build_sitemaps``;
3. rewritten as a ``SitemapSource`` when it is worth it (``PostSource`` is).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.sitemaps import Sitemap
from django.db.models import Max, Q, QuerySet

from blog.models import Category


class CategorySitemap(Sitemap):  # type: ignore[type-arg]
    """Every category, located by ``Category.get_absolute_url()``; it changes when
    one of its published posts does."""

    changefreq = "daily"
    priority = 0.8

    def items(self) -> QuerySet[Category]:
        found: QuerySet[Category] = Category.objects.annotate(
            last_post_at=Max("posts__updated_at", filter=Q(posts__published=True))
        ).order_by("pk")
        return found

    def lastmod(self, category: Any) -> dt.datetime | None:
        newest: dt.datetime | None = category.last_post_at
        return newest


#: The dict contrib's views take: the key names the section.
sitemaps: dict[str, Any] = {"categories": CategorySitemap}
