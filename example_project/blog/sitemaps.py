"""The sitemap sections, imported at start-up by django_sitemapkit.

``/sitemap.xml`` lists every page of every section of the request's site;
``/sitemap-posts-1.xml`` is the first page of posts, and so on.

The project serves two sites (``SITEMAPKIT_SITES`` in mysite/settings.py):

    section      www (the blog)                shop
    posts        every published post          the featured posts only
                 (but those marked seo_noindex)
    pages        home, about, list of posts    -
    categories   -                             every category

With one site (``SITEMAPKIT_BASE_URL``) that site lists every section, and
every published post but the noindex ones: ``sites`` and ``get_site_queryset()`` only choose among
several sites.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Max, QuerySet
from django_sitemapkit import (
    SitemapSite,
    SitemapSource,
    StaticPage,
    StaticSource,
    compat,
    register,
)

from blog import contrib_sitemaps
from blog.models import Post


@register
class PostSource(SitemapSource):
    """Every published post, 50,000 to a page, at /posts/<category>/<slug>/; the
    shop lists only the featured ones."""

    name = "posts"
    queryset = Post.objects.published()
    url_name = "post-detail"
    # URL argument -> field path; "category__slug" follows the foreign key.
    url_kwargs = {"category": "category__slug", "slug": "slug"}
    lastmod = "updated_at"
    # What the HTML sitemap for visitors shows of each post (/sitemap-posts-1.html).
    title = "title"
    # Posts whose page says noindex are left out, in the query: every page keeps
    # 50,000 URLs, and the index counts only what is listed.
    noindex = "seo_noindex"

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Post]:
        # No `sites`: the section lists on every site, with the rows chosen here.
        posts: QuerySet[Post] = self.get_queryset()
        if site.name == "shop":
            posts = posts.featured()
        return posts


# The categories are still a django.contrib.sitemaps class (blog/contrib_sitemaps.py),
# registered as they are: the section "categories" of this app, on the shop only.
compat.register(contrib_sitemaps.sitemaps, sites=["shop"])


@register
class PageSource(StaticSource):
    """The pages that are not rows: home, about and the list of posts, on the blog only."""

    name = "pages"
    sites = ["www"]
    urls = ["home", "about", ("post-list", {})]

    def lastmod(self, page: StaticPage) -> dt.datetime | None:
        # The home page and the list of posts change with the newest post.
        if page.url_name in ("home", "post-list"):
            newest: dt.datetime | None = Post.objects.published().aggregate(
                newest=Max("updated_at")
            )["newest"]
            return newest
        return None
