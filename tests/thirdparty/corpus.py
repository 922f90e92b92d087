"""The corpus: packages from the package index that ship ``django.contrib.sitemaps``
classes, each installed in this project as its documentation says
(thirdparty/settings.py, thirdparty/urls.py) and given a few rows of its own
models; test_compat_corpus.py serves each through contrib's views and the
drop-in side by side. Wagtail's, django CMS's and FeinCMS's classes have their
own tests (test_compat_wagtail.py, test_compat_cms.py, test_compat_feincms.py).

Each row names the package, its sitemaps (as thirdparty/urls.py serves them under
``/own/<name>.xml`` and ``/dropin/<name>.xml``) and makes its rows, returning the
URLs and lastmod days contrib's view must list for them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aldryn_newsblog.cms_appconfig import NewsBlogConfig
from aldryn_newsblog.models import Article
from aldryn_newsblog.sitemaps import NewsBlogSitemap
from cms.api import create_page
from cms.models import PageContent
from django.contrib.auth.models import User
from django.contrib.flatpages.models import FlatPage
from django.contrib.flatpages.sitemaps import FlatPageSitemap
from django.contrib.sitemaps import GenericSitemap, Sitemap
from django.contrib.sites.models import Site
from djangocms_page_sitemap.models import PageSitemapProperties
from djangocms_page_sitemap.sitemap import ExtendedSitemap
from fiber.models import Page as FiberPage
from fiber.sitemaps import FiberSitemap

from thirdparty.compat_side_by_side import WWW, Urls, at


@dataclass(frozen=True)
class Package:
    """A package of the corpus: its sitemaps, and the rows a test makes for them."""

    name: str
    sitemaps: dict[str, type[Sitemap[Any]] | Sitemap[Any]]
    make: Callable[[], Urls]


def flat_pages() -> Urls:
    """Three public flat pages on the current Site, one behind a login (left out),
    and one on another Site (left out): FlatPage has no date, so no lastmods."""
    site = Site.objects.get_current()
    other = Site.objects.create(domain="other.example.com", name="other")
    for url in ("/about/", "/contact/", "/legal/terms/", "/members/", "/elsewhere/"):
        page = FlatPage._default_manager.create(
            url=url, title=url, registration_required=url == "/members/"
        )
        page.sites.add(other if url == "/elsewhere/" else site)
    return {f"{WWW}/pages{url}": None for url in ("/about/", "/contact/", "/legal/terms/")}


def generic_flat_pages() -> Urls:
    """Django's ``GenericSitemap`` over the same pages, as its docs show it (an
    ``info_dict`` with a queryset, a priority and a change frequency): every public
    page of every Site, the other Site's too. FlatPage has no date field to give it."""
    return flat_pages() | {f"{WWW}/pages/elsewhere/": None}


def cms_pages_with_properties() -> Urls:
    """django CMS pages, one extended out of the sitemap, one with its own priority
    and change frequency (djangocms-page-sitemap's ``PageSitemapProperties``)."""
    home = create_page("Home", "page.html", "en")
    pages = [home] + [create_page(f"Page {n}", "page.html", "en", parent=home) for n in range(1, 5)]
    PageSitemapProperties.objects.create(extended_object=pages[2], include_in_sitemap=False)
    PageSitemapProperties.objects.create(
        extended_object=pages[3], priority="0.9", changefreq="daily"
    )
    for day, content in enumerate(PageContent.objects.order_by("pk")):
        PageContent.objects.filter(pk=content.pk).update(changed_date=at(day))
    return {
        f"{WWW}/cms/home/": at(0).date().isoformat(),
        **{f"{WWW}/cms/home/page-{n}/": at(n).date().isoformat() for n in (1, 3, 4)},
    }


def fiber_pages() -> Urls:
    """A tree of Fiber pages: a root with its own path, children with paths relative
    to it, one private page (left out), each updated on its own day."""
    root = FiberPage.objects.create(title="Fiber", url="/fiber/")
    made = [root]
    made += [FiberPage.objects.create(title=slug, url=slug, parent=root) for slug in ("a", "b")]
    made.append(FiberPage.objects.create(title="deep", url="deep", parent=made[1]))
    FiberPage.objects.create(title="private", url="private", parent=root, is_public=False)
    for day, page in enumerate(made):
        FiberPage.objects.filter(pk=page.pk).update(updated=at(day))
    paths = ("/fiber/", "/fiber/a/", "/fiber/b/", "/fiber/a/deep/")
    return {f"{WWW}{path}": at(day).date().isoformat() for day, path in enumerate(paths)}


def news_articles() -> Urls:
    """A news app's published articles, one of them translated to French, one not yet
    published (left out), one of another app config (left out); each published on
    its own day. NewsBlogSitemap's lastmod is the publishing date."""
    news = NewsBlogConfig.objects.create(namespace="news", app_title="News")
    other = NewsBlogConfig.objects.create(namespace="other", app_title="Other")
    owner = User.objects.create(username="editor")
    made = []
    for n, (config, published) in enumerate(
        ((news, True), (news, True), (news, True), (news, False), (other, True))
    ):
        made.append(
            Article.objects.create(
                title=f"Story {n}",
                app_config=config,
                owner=owner,
                is_published=published,
                publishing_date=at(n),
            )
        )
    made[0].set_current_language("fr")
    made[0].title = "Histoire"
    made[0].save()
    urls: Urls = {f"{WWW}/news/story-{n}/": at(n).date().isoformat() for n in range(3)}
    # The French section lists the one article translated, at its French slug.
    return urls | {f"{WWW}/news/histoire/": urls[f"{WWW}/news/story-0/"]}


CORPUS = (
    Package("flatpages", {"flatpages": FlatPageSitemap}, flat_pages),
    Package(
        "generic",
        {
            "flat": GenericSitemap(
                {"queryset": FlatPage._default_manager.filter(registration_required=False)},
                priority=0.4,
                changefreq="yearly",
            )
        },
        generic_flat_pages,
    ),
    Package("pagesitemap", {"pages": ExtendedSitemap}, cms_pages_with_properties),
    Package("fiber", {"pages": FiberSitemap}, fiber_pages),
    # As aldryn-translation-tools' I18NSitemap documents it: an instance a language.
    Package(
        "newsblog",
        {
            "news-en": NewsBlogSitemap("en", namespace="news"),
            "news-fr": NewsBlogSitemap("fr", namespace="news"),
        },
        news_articles,
    ),
)
