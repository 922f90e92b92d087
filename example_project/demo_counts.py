"""What each site of the example lists, and the URL counts of its sitemap pages
against the database: shared by demo_check.py (the documents served) and
demo_files_check.py (the files built)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from demo_http import CheckFailed

HERE = Path(__file__).resolve().parent
#: The sections each site lists (blog/sitemaps.py); a project's only site lists them all.
SITE_SECTIONS = {"www": ("posts", "pages"), "shop": ("posts", "categories")}
ALL_SECTIONS = ("posts", "categories", "pages")


@dataclass
class Listing:
    """One sitemap page: its file name, section and the URLs it lists."""

    name: str
    section: str
    urls: int
    locs: list[str] = field(default_factory=list)


def database_counts(site: str) -> dict[str, int]:
    """What each section of ``site`` should list, counted straight from the database:
    the shop lists only the featured posts; a project's only site, every section."""
    sys.path.insert(0, str(HERE))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")
    import django

    django.setup()
    from blog.models import FEATURED_PRIORITY, Category, Post
    from blog.sitemaps import PageSource

    posts = Post.objects.filter(published=True, seo_noindex=False)
    if site == "shop":
        posts = posts.filter(priority__gte=FEATURED_PRIORITY)
    counts = {
        "posts": posts.count(),
        "categories": Category.objects.count(),
        "pages": len(PageSource.urls),
    }
    return {section: counts[section] for section in SITE_SECTIONS.get(site, ALL_SECTIONS)}


def section_of(name: str) -> str:
    """``sitemap-posts-2.xml`` -> ``posts``."""
    return name.removeprefix("sitemap-").rsplit("-", 1)[0]


def check_counts(pages: Sequence[Listing], page_size: int, site: str) -> int:
    print(f"\n== URL counts per page of site {site!r}")
    for page in pages:
        print(f"   {page.name:<32} {page.urls:>8,}")
    total = sum(page.urls for page in pages)
    print(f"   {'total':<32} {total:>8,}")
    expected = database_counts(site)
    others = sorted({page.section for page in pages} - set(expected))
    if others:
        raise CheckFailed(f"site {site!r} lists sections it should not: {others}")
    for section, count in expected.items():
        section_pages = [page for page in pages if page.section == section]
        listed = sum(page.urls for page in section_pages)
        verdict = "ok" if listed == count else "MISMATCH"
        print(f"   {section}: {listed:,} URLs listed, {count:,} in the database: {verdict}")
        if listed != count:
            raise CheckFailed(f"section {section!r} lists {listed:,} URLs, expected {count:,}")
        if any(page.urls != page_size for page in section_pages[:-1]):
            raise CheckFailed(f"a page of {section!r} other than the last is not full")
    every_loc = [loc for page in pages for loc in page.locs]
    if len(set(every_loc)) != len(every_loc):
        raise CheckFailed("some URL is listed twice")
    print("   every URL is listed once")
    return total
