"""Wagtail pages made in bulk for the tests: a thousand pages by ``add_child()`` take
a minute; as rows of one ``bulk_create()`` each, with the tree's paths and
``url_path`` written as treebeard and Wagtail write them, they take a second.

The pages are of the base ``Page`` type, as Wagtail serves them; a page type of
its own (``EventPage``) is added by ``add_child()``.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.contenttypes.models import ContentType
from wagtail.models import Locale, Page, Site

#: Noon UTC: the same day in Europe/Paris (TIME_ZONE), where Wagtail's view writes
#: its dates, as in UTC, where the sitemap writes them.
NOON = dt.time(12, tzinfo=dt.timezone.utc)


def published(day: int) -> dt.datetime:
    return dt.datetime.combine(dt.date(2026, 1, 1) + dt.timedelta(days=day), NOON)


def children(
    parent: Page,
    slugs: Sequence[str],
    *,
    keys: Sequence[uuid.UUID] | None = None,
    locale: Locale | None = None,
    day: int = 0,
) -> list[Page]:
    """Live pages under ``parent``, one per slug, in order; ``keys`` are their
    translation keys (another locale's pages' own, for translations)."""
    page_type = ContentType.objects.get_for_model(Page)
    locale = locale or parent.locale
    first = parent.numchild + 1
    pages = [
        Page(
            title=slug,
            draft_title=slug,
            slug=slug,
            content_type=page_type,
            path=Page._get_path(parent.path, parent.depth + 1, first + number),
            depth=parent.depth + 1,
            numchild=0,
            url_path=f"{parent.url_path}{slug}/",
            live=True,
            first_published_at=published(day + number % 300),
            last_published_at=published(day + number % 300),
            latest_revision_created_at=published(day + number % 300),
            locale=locale,
            translation_key=keys[number] if keys is not None else uuid.uuid4(),
        )
        for number, slug in enumerate(slugs)
    ]
    created: list[Page] = Page.objects.bulk_create(pages)
    Page.objects.filter(pk=parent.pk).update(numchild=parent.numchild + len(pages))
    parent.numchild += len(pages)
    return created


def root() -> Page:
    """The tree's root, with nothing below it: Wagtail's welcome page and its Site
    are deleted."""
    Site.objects.all().delete()
    tree = Page.objects.get(depth=1)
    Page.objects.filter(depth__gt=1).delete()
    Page.objects.filter(pk=tree.pk).update(numchild=0)
    tree.refresh_from_db()
    return tree


def site(hostname: str, home: Page, *, default: bool = False, port: int = 443) -> Site:
    return Site.objects.create(
        hostname=hostname, port=port, root_page=home, is_default_site=default
    )


@dataclass
class Project:
    """Two Wagtail sites: www, in English and French (the French tree a translation
    of some of the English sections), and blog, in English."""

    www: Site
    blog: Site
    home: Page
    accueil: Page
    sections: list[Page]
    french_sections: list[Page]
    blog_home: Page


def project(
    sections: int = 10, per_section: int = 150, translated: int = 5, blog_pages: int = 300
) -> Project:
    tree = root()
    english = Locale.objects.get(language_code="en")
    french, _ = Locale.objects.get_or_create(language_code="fr")
    home, blog_home = children(tree, ["home", "blog"], locale=english)
    (accueil,) = children(tree, ["accueil"], locale=french, keys=[home.translation_key])
    parts = children(home, [f"s{number}" for number in range(sections)])
    french_parts = children(
        accueil,
        [f"fr-s{number}" for number in range(translated)],
        keys=[part.translation_key for part in parts[:translated]],
    )
    for number, part in enumerate(parts):
        pages = children(part, [f"p{number}-{n}" for n in range(per_section)], day=number)
        if number < translated:
            children(
                french_parts[number],
                [f"fr-p{number}-{n}" for n in range(per_section)],
                keys=[page.translation_key for page in pages],
                day=number,
            )
    children(blog_home, [f"post-{n}" for n in range(blog_pages)])
    www = site("www.example.com", home, default=True)
    blog = site("blog.example.com", blog_home)
    return Project(www, blog, home, accueil, parts, french_parts, blog_home)
