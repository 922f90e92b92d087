"""The blog's sitemap sections, imported at start-up by django_sitemapkit.

``/sitemap.xml`` lists every page of every section below;
``/sitemap-posts-1.xml`` is the first page of posts, and so on.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Max, Q
from django_sitemapkit import Field, SitemapSource, StaticPage, StaticSource, register

from blog.models import Category, Post


@register
class PostSource(SitemapSource):
    """Every published post, 50,000 to a page, at /posts/<category>/<slug>/."""

    name = "posts"
    queryset = Post.objects.published()
    url_name = "post-detail"
    # URL argument -> field path; "category__slug" follows the foreign key.
    url_kwargs = {"category": "category__slug", "slug": "slug"}
    lastmod = "updated_at"
    changefreq = "weekly"
    # Posts with an empty priority get no <priority> element.
    priority = Field("priority")


@register
class CategorySource(SitemapSource):
    """Every category, located by Category.get_absolute_url()."""

    name = "categories"
    # A category changes when one of its published posts does.
    queryset = Category.objects.annotate(
        last_post_at=Max("posts__updated_at", filter=Q(posts__published=True))
    )
    lastmod = "last_post_at"
    changefreq = "daily"
    priority = 0.8


@register
class PageSource(StaticSource):
    """The pages that are not rows: home, about and the list of posts."""

    name = "pages"
    urls = ["home", "about", ("post-list", {})]
    changefreq = "monthly"
    priority = 1.0

    def lastmod(self, page: StaticPage) -> dt.datetime | None:
        # The home page and the list of posts change with the newest post.
        if page.url_name in ("home", "post-list"):
            newest: dt.datetime | None = Post.objects.published().aggregate(
                newest=Max("updated_at")
            )["newest"]
            return newest
        return None
