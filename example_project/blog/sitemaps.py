"""The blog's sitemap sections, imported at start-up by django_sitemapkit.

``/sitemap.xml`` lists every page of every section below;
``/sitemap-posts-1.xml`` is the first page of posts, and so on.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Max
from django_sitemapkit import Field, SitemapSource, StaticPage, StaticSource, compat, register

from blog import contrib_sitemaps
from blog.models import Post


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


# The categories are still a django.contrib.sitemaps class (blog/contrib_sitemaps.py),
# registered as they are: the section "categories" of this app.
compat.register(contrib_sitemaps.sitemaps)


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
