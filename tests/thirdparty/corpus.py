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

import datetime as dt
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
from django.core.management.color import no_style
from django.db import connection
from djangocms_page_sitemap.models import PageSitemapProperties
from djangocms_page_sitemap.sitemap import ExtendedSitemap
from djangocms_stories.cms_appconfig import StoriesConfig, config_defaults
from djangocms_stories.models import Post, PostContent
from djangocms_stories.sitemaps import StoriesSitemap
from elephantblog.models import Entry
from elephantblog.sitemap import EntrySitemap
from fiber.models import Page as FiberPage
from fiber.sitemaps import FiberSitemap
from mdjango.sitemaps import DocsSitemap

from thirdparty.compat_side_by_side import UTC, WWW, Urls, at


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
    # Its migration 0007 makes a default config with an explicit pk, which leaves
    # PostgreSQL's sequence behind: reset it, as ``manage.py sqlsequencereset`` does.
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [NewsBlogConfig]):
            cursor.execute(sql)
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


def blog_entries() -> Urls:
    """ElephantBlog's entries (FeinCMS's blog) as its URLconf serves them on their own:
    three active ones published on their own days, one inactive and one to be
    published tomorrow (both left out). The lastmod is the entry's last change."""
    author = User.objects.create(username="blogger")
    tomorrow = dt.datetime.now(UTC) + dt.timedelta(days=1)
    made = []
    for n, (active, published) in enumerate(
        ((True, at(0)), (True, at(1)), (True, at(2)), (False, at(3)), (True, tomorrow))
    ):
        made.append(
            Entry.objects.create(
                title=f"Entry {n}",
                slug=f"entry-{n}",
                author=author,
                is_active=active,
                published_on=published,
            )
        )
    for day, entry in enumerate(made):
        Entry.objects.filter(pk=entry.pk).update(last_changed=at(10 + day))
    return {
        f"{WWW}/blog/2024/03/{day + 1:02d}/entry-{day}/": at(10 + day).date().isoformat()
        for day in range(3)
    }


def stories() -> Urls:
    """djangocms-stories' posts (django CMS 4's blog) in English and French, of an
    app config at /stories/ with its own sitemap priority and change frequency (a
    decimal field). The sitemap asks each content for its URL in the active
    language, so the French content is listed at the English URL (twice, by contrib
    and by the drop-in). The lastmod is the post's last change."""
    # The defaults djangocms-stories' admin form fills in.
    config = StoriesConfig.objects.create(
        **config_defaults | {"sitemap_priority": "0.7", "sitemap_changefreq": "daily"},
        namespace="stories",
        app_title="Stories",
    )
    for n, languages in enumerate((("en", "fr"), ("en",))):
        post = Post.objects.create(app_config=config, date_published=at(n))
        for language in languages:
            PostContent.objects.create(
                post=post, language=language, title=f"Story {n}", slug=f"{language}-story-{n}"
            )
        Post.objects.filter(pk=post.pk).update(date_modified=at(10 + n))
    return {
        f"{WWW}/stories/2024/03/{n + 1:02d}/en-story-{n}/": at(10 + n).date().isoformat()
        for n in range(2)
    }


def docs_pages() -> Urls:
    """mdjango's markdown documentation (thirdparty/docs/), as its sitemap lists it:
    the landing page first, then the pages in their sections' order, no draft; a
    page's lastmod is its front matter's ``updated`` date, none without one."""
    return {
        f"{WWW}/docs/": "2024-03-01",
        f"{WWW}/docs/install/": "2024-03-02",
        f"{WWW}/docs/guides/first-steps/": None,
        f"{WWW}/docs/guides/deploy/": "2024-03-04",
    }


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
    Package("elephantblog", {"blog": EntrySitemap}, blog_entries),
    Package("stories", {"stories": StoriesSitemap}, stories),
    Package("mdjango", {"docs": DocsSitemap}, docs_pages),
)
