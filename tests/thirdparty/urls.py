"""URLs of the third-party project: each package's own sitemap view, as its docs
show it, next to its pages (Wagtail's pages at the root, last)."""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.contrib.sitemaps.views import sitemap as wagtail_sitemap

urlpatterns = [
    path("wagtail-sitemap.xml", wagtail_sitemap),
    # The app's own views, for the native Wagtail source (test_wagtail_*.py).
    path("", include("django_sitemapkit.urls")),
    path("", include(wagtail_urls)),
]

# -- The drop-in beside each package's own sitemap views (test_compat_*.py) ----
# Each package's sitemap class served by the views its documentation shows
# (Wagtail's own views for Wagtail's Sitemap, contrib's for django CMS's and
# FeinCMS's) under /own/, and by the drop-in under /dropin/: the page of all
# sections, the index, and each section's pages. Then django CMS's and
# FeinCMS's pages, and this app's own URLs for compat.register(). All come
# before Wagtail's pages, whose pattern takes every path ending in "/".
from cms.sitemaps import CMSSitemap  # noqa: E402
from django.contrib.sitemaps import views as contrib_views  # noqa: E402
from django.urls import URLPattern, URLResolver  # noqa: E402
from django.views.decorators.cache import cache_page  # noqa: E402
from feincms.module.page.sitemap import PageSitemap  # noqa: E402
from wagtail.contrib.sitemaps import Sitemap as WagtailSitemap  # noqa: E402
from wagtail.contrib.sitemaps import views as wagtail_views  # noqa: E402

from django_sitemapkit import compat  # noqa: E402
from thirdparty.corpus import CORPUS  # noqa: E402


class PagedCMSSitemap(CMSSitemap):
    """django CMS's class in pages of ten, as a project sets ``limit``."""

    limit = 10


class PagedWagtailSitemap(WagtailSitemap):
    """Wagtail's class in pages of ten."""

    limit = 10


COMPAT_SITEMAPS = {
    "cms": {"pages": CMSSitemap},
    "pagedcms": {"pages": PagedCMSSitemap},
    "wagtail": {"pages": WagtailSitemap},
    "pagedwagtail": {"pages": PagedWagtailSitemap},
    "feincms": {"pages": PageSitemap},
}
COMPAT_SITEMAPS |= {package.name: package.sitemaps for package in CORPUS}
OWN_VIEWS: dict[str, Any] = {
    "cms": contrib_views,
    "pagedcms": contrib_views,
    "wagtail": wagtail_views,
    "pagedwagtail": wagtail_views,
    "feincms": contrib_views,
    **{package.name: contrib_views for package in CORPUS},
}


def compat_patterns() -> list[URLPattern | URLResolver]:
    patterns: list[URLPattern | URLResolver] = []
    for package, sitemaps in COMPAT_SITEMAPS.items():
        for prefix, views in (("own", OWN_VIEWS[package]), ("dropin", compat)):
            section = f"{prefix}-{package}"
            given = {"sitemaps": sitemaps}
            patterns += [
                path(f"{prefix}/{package}.xml", views.sitemap, given),
                path(
                    f"{prefix}/{package}-index.xml",
                    views.index,
                    {**given, "sitemap_url_name": section},
                ),
                path(f"{prefix}/{package}-<section>.xml", views.sitemap, given, name=section),
            ]
    for member in CORPUS:
        # The corpus' sections again behind cache_page, as Django's docs wrap the view.
        for prefix, views in (("own", contrib_views), ("dropin", compat)):
            patterns.append(
                path(
                    f"{prefix}-cached/{member.name}.xml",
                    cache_page(60)(views.sitemap),
                    {"sitemaps": member.sitemaps},
                )
            )
    return [
        *patterns,
        path("cms/", include("cms.urls")),
        path("fein/", include("feincms.urls")),
        path("pages/", include("django.contrib.flatpages.urls")),
        # Where django CMS's apphook would mount the news app of the namespace "news".
        path("news/", include(("aldryn_newsblog.urls", "aldryn_newsblog"), namespace="news")),
        # ElephantBlog on its own (no FeinCMS page), djangocms-stories' app config
        # "stories" where its apphook would mount it, mdjango's docs.
        path("blog/", include("elephantblog.urls")),
        path(
            "stories/",
            include(("djangocms_stories.urls", "djangocms_stories"), namespace="stories"),
        ),
        path("docs/", include("mdjango.urls")),
        *app_urls(),
    ]


def app_urls() -> list[URLPattern | URLResolver]:
    """This app's own URLs, unless the list above already includes them (twice, their
    namespace would not be unique: Django's check urls.W005)."""
    included = any(
        getattr(getattr(pattern, "urlconf_name", None), "__name__", None)
        == "django_sitemapkit.urls"
        for pattern in urlpatterns
    )
    return [] if included else [path("", include("django_sitemapkit.urls"))]


urlpatterns[:0] = compat_patterns()
