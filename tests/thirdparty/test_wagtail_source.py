"""django_sitemapkit.wagtail: a Wagtail site's pages listed as rows, compared with what
Wagtail's own sitemap view lists for the same pages (wagtail.contrib.sitemaps)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from sitemap_xml import parse_extended_urlset, streamed
from wagtail.models import Page, PageViewRestriction, Site

from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.plan import compile_plan
from django_sitemapkit.wagtail import WagtailSource
from thirdparty import wagtail_tree
from thirdparty.pages.models import ArticlePage, EventPage
from thirdparty.wagtail_reading import get, listed, serving, wagtail_listed

pytestmark = pytest.mark.django_db

WWW = "https://www.example.com"
BLOG = "https://blog.example.com"


class Pages(WagtailSource):
    name = "pages"
    # Pages of 500 URLs: every site's listing crosses page boundaries.
    limit = 500


def child(parent: Page, number: int) -> Page:
    return Page.objects.child_of(parent).order_by("path")[number]


def locations(host: str) -> set[str]:
    return {url.loc for url in listed(host)}


@pytest.mark.slow
def test_the_pages_wagtail_lists_less_aliases_and_pages_past_their_expiry() -> None:
    project = wagtail_tree.project()
    sections = project.sections
    Page.objects.filter(pk=child(sections[1], 0).pk).update(live=False)
    Page.objects.filter(pk=child(sections[1], 1).pk).update(live=False, expired=True)
    expiring = child(sections[1], 2)
    Page.objects.filter(pk=expiring.pk).update(expire_at=timezone.now() - dt.timedelta(days=1))
    PageViewRestriction.objects.create(page=sections[2], restriction_type="login")
    (alias,) = wagtail_tree.children(sections[3], ["alias"])
    Page.objects.filter(pk=alias.pk).update(alias_of=child(sections[0], 5))
    Page.objects.filter(pk=child(sections[5], 0).pk).update(
        last_published_at=None, latest_revision_created_at=wagtail_tree.published(40)
    )
    Page.objects.get(pk=sections[4].pk).add_child(
        instance=EventPage(title="event", slug="event", last_published_at=wagtail_tree.published(9))
    )
    with serving(Pages):
        english = wagtail_listed("www.example.com")
        blog = wagtail_listed("blog.example.com")
        Site.objects.filter(pk=project.www.pk).update(root_page=project.accueil)
        Site.clear_site_root_paths_cache()
        french = wagtail_listed("www.example.com")
        Site.objects.filter(pk=project.www.pk).update(root_page=project.home)
        Site.clear_site_root_paths_cache()
        ours = {url.loc: url for url in listed("www.example.com")}
        ours_blog = {url.loc: url for url in listed("blog.example.com")}

    # What Wagtail lists and should not: the alias (the same page at a second URL),
    # and the page whose expire_at has passed while publish_scheduled has yet to run.
    left_out = {f"{WWW}/s3/alias/", f"{WWW}/s1/{expiring.slug}/"}
    assert left_out <= set(english)
    expected = {
        loc: lastmod for loc, lastmod in {**english, **french}.items() if loc not in left_out
    }
    assert {loc: url.lastmod and url.lastmod[:10] for loc, url in ours.items()} == expected
    assert len(ours) == 1 + 10 + 150 * 10 - 3 - 151 + 2 + 1 + 5 + 150 * 5
    assert {loc: url.lastmod and url.lastmod[:10] for loc, url in ours_blog.items()} == blog
    assert len(ours_blog) == 301
    # Wagtail's view lists the English tree alone; the French is the site's too.
    assert f"{WWW}/fr/fr-s0/fr-p0-3/" in ours
    assert f"{WWW}/fr/fr-s0/fr-p0-3/" not in english
    assert ours[f"{WWW}/s5/p5-0/"].lastmod == "2026-02-10T12:00:00+00:00"


def test_each_page_lists_its_listed_translations_as_alternates() -> None:
    project = wagtail_tree.project(sections=3, per_section=4, translated=2, blog_pages=1)
    unpublished = child(project.french_sections[1], 2)
    Page.objects.filter(pk=unpublished.pk).update(live=False)
    with serving(Pages):
        urls = {url.loc: url.alternates for url in listed("www.example.com")}
    both = [("en", f"{WWW}/s0/p0-1/"), ("fr", f"{WWW}/fr/fr-s0/fr-p0-1/")]
    assert urls[f"{WWW}/s0/p0-1/"] == both
    assert urls[f"{WWW}/fr/fr-s0/fr-p0-1/"] == both
    assert urls[f"{WWW}/"] == [("en", f"{WWW}/"), ("fr", f"{WWW}/fr/")]
    # Its translation unpublished, a page has no other version to list.
    assert urls[f"{WWW}/s1/p1-2/"] == []
    assert f"{WWW}/fr/fr-s1/fr-p1-2/" not in urls
    # An untranslated section.
    assert urls[f"{WWW}/s2/p2-0/"] == []


def test_pages_are_read_in_the_order_of_the_tree_a_seek_at_a_time() -> None:
    wagtail_tree.project(sections=3, per_section=400, translated=0, blog_pages=1)
    with serving(Pages):
        urls = [url.loc for url in listed("www.example.com")]
        plan = compile_plan(Pages(), next(iter(_sites())))
    paths = list(
        Page.objects.filter(path__startswith=Page.objects.get(slug="home").path)
        .order_by("path")
        .values_list("url_path", flat=True)
    )
    # The English tree, then the French one (its home alone here).
    assert urls == [*(f"{WWW}/{path.removeprefix('/home/')}" for path in paths), f"{WWW}/fr/"]
    assert len(urls) == 1205
    assert plan.page_size == 500
    assert [column.name for column in plan.key or ()] == ["path", "pk"]


def _sites() -> list[SitemapSite]:
    from django_sitemapkit.sites.hosts import all_sites

    return [site for site in all_sites() if site.name == "www.example.com"]


@pytest.mark.parametrize(
    ("change", "gone"),
    [
        ({"live": False}, "unpublished"),
        ({"live": False, "expired": True}, "expired"),
        ({"expire_at": timezone.now() - dt.timedelta(minutes=1)}, "past its expire_at"),
    ],
)
def test_a_page_not_live_is_left_out(change: dict[str, object], gone: str) -> None:
    project = wagtail_tree.project(sections=2, per_section=3, translated=0, blog_pages=1)
    page = child(project.sections[1], 1)
    with serving(Pages):
        before = locations("www.example.com")
        Page.objects.filter(pk=page.pk).update(**change)
        after = locations("www.example.com")
    assert before - after == {f"{WWW}/s1/p1-1/"}, gone


def test_a_view_restriction_leaves_out_its_page_and_every_descendant() -> None:
    project = wagtail_tree.project(sections=2, per_section=3, translated=0, blog_pages=1)
    with serving(Pages):
        before = locations("www.example.com")
        PageViewRestriction.objects.create(
            page=project.sections[1], restriction_type="password", password="secret"
        )
        after = locations("www.example.com")
    assert before - after == {f"{WWW}/s1/", *(f"{WWW}/s1/p1-{n}/" for n in range(3))}


def test_an_alias_is_left_out_and_its_original_listed() -> None:
    project = wagtail_tree.project(sections=2, per_section=3, translated=0, blog_pages=1)
    original = child(project.sections[0], 0)
    (alias,) = wagtail_tree.children(project.sections[1], ["copy"])
    with serving(Pages):
        before = locations("www.example.com")
        Page.objects.filter(pk=alias.pk).update(alias_of=original)
        after = locations("www.example.com")
    assert before - after == {f"{WWW}/s1/copy/"}
    assert f"{WWW}/s0/p0-0/" in after


def test_a_site_nested_in_another_keeps_its_pages_to_its_own_host() -> None:
    project = wagtail_tree.project(sections=2, per_section=2, translated=0, blog_pages=1)
    wagtail_tree.site("shop.example.com", project.sections[1])
    with serving(Pages, ALLOWED_HOSTS=["www.example.com", "shop.example.com"]):
        www = locations("www.example.com")
        shop = locations("shop.example.com")
        wagtail = wagtail_listed("www.example.com")
    assert shop == {
        "https://shop.example.com/",
        *(f"https://shop.example.com/p1-{n}/" for n in range(2)),
    }
    assert www == {f"{WWW}/", f"{WWW}/s0/", f"{WWW}/s0/p0-0/", f"{WWW}/s0/p0-1/", f"{WWW}/fr/"}
    # Wagtail's view of www lists the shop's pages a second time, on www's host
    # (get_url_parts() prefers the request's site); Page.get_site() says they are
    # the shop's, the nearest site, as the source lists them.
    shop_on_www = {f"{WWW}/s1/", f"{WWW}/s1/p1-0/", f"{WWW}/s1/p1-1/"}
    assert set(wagtail) == (www - {f"{WWW}/fr/"}) | shop_on_www


def test_noindex_and_canonical_are_declared_as_on_any_source() -> None:
    project = wagtail_tree.project(sections=2, per_section=2, translated=0, blog_pages=1)
    Page.objects.filter(pk=child(project.sections[0], 1).pk).update(show_in_menus=True)
    Page.objects.filter(pk=child(project.sections[1], 0).pk).update(seo_title="/elsewhere/")

    class Kept(WagtailSource):
        name = "kept"
        noindex = "show_in_menus"
        canonical = "seo_title"

    with serving(Kept):
        urls = locations("www.example.com")
    assert urls == {
        *(f"{WWW}/{path}" for path in ["", "s0/", "s0/p0-0/", "s1/", "s1/p1-1/", "fr/"])
    }


def test_without_wagtails_appended_slash_the_locations_end_as_wagtail_ends_them() -> None:
    wagtail_tree.project(sections=1, per_section=1, translated=1, blog_pages=1)
    with serving(Pages, WAGTAIL_APPEND_SLASH=False):
        urls = [url.loc for url in listed("www.example.com")]
    assert urls == [
        *(f"{WWW}{path}" for path in ["/", "/s0", "/s0/p0-0"]),
        *(f"{WWW}{path}" for path in ["/fr", "/fr/fr-s0", "/fr/fr-s0/fr-p0-0"]),
    ]


def test_a_site_in_one_locale_is_written_without_alternates() -> None:
    wagtail_tree.project(sections=1, per_section=2, translated=0, blog_pages=2)
    with serving(Pages):
        page = get("blog.example.com", "/sitemap-pages-1.xml")
        body = streamed(page)
    assert body.splitlines()[1] == b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    assert [url.loc for url in parse_extended_urlset(body)] == [
        f"{BLOG}/",
        f"{BLOG}/post-0/",
        f"{BLOG}/post-1/",
    ]


def test_a_section_of_one_page_type() -> None:
    project = wagtail_tree.project(sections=2, per_section=2, translated=0, blog_pages=1)
    Page.objects.get(pk=project.sections[1].pk).add_child(
        instance=ArticlePage(title="news", slug="news")
    )

    class Articles(WagtailSource):
        name = "articles"
        queryset = ArticlePage.objects.all()

    with serving(Articles):
        urls = locations("www.example.com")
    assert urls == {f"{WWW}/s1/news/"}
