"""The Wagtail cases: a 10,000-page Wagtail site's sitemap from Wagtail's own view
(``wagtail.contrib.sitemaps``) and from this package's native source
(``django_sitemapkit.wagtail.WagtailSource``), on the same pages, in children
started with bench/wagtail_settings.py.

The pages are made once, in the first child's untimed ``setup()``: a home, 99
sections of 100 pages, all live and public, of Wagtail's base ``Page`` type, as
rows of one ``bulk_create()`` with the tree's paths written as treebeard writes
them (``add_child()`` would take minutes). A Wagtail ``Site`` on the host and
port of ``SITEMAPKIT_BASE_URL`` serves them, so both views write the same
locations (the parent compares them).
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from urllib.parse import urlsplit

from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from django_sitemapkit import register, registry
from django_sitemapkit.wagtail import WagtailSource
from wagtail.models import Locale, Page, Site

from bench.measuring import Outcome, Sink, consume, read_whole, streamed
from bench.sizes import WAGTAIL_PAGES, Plan
from bench.sources import base_url, make_request

SECTIONS = 99
PER_SECTION = (WAGTAIL_PAGES - 1 - SECTIONS) // SECTIONS
FIRST_PUBLISHED = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


class WagtailPages(WagtailSource):
    """The native section, over every page of the site."""

    name = "wagtail"


def seeded(host: str, port: int) -> bool:
    try:
        return (
            Site.objects.filter(hostname=host, port=port, is_default_site=True).exists()
            and Page.objects.filter(depth__gt=1).count() == WAGTAIL_PAGES
        )
    except DatabaseError:  # no table yet
        return False


def ensure_pages() -> None:
    """The site and its pages, made unless they are there."""
    parts = urlsplit(base_url())
    host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    if seeded(host, port):
        return
    call_command("migrate", verbosity=0, interactive=False)
    with transaction.atomic():
        Site.objects.all().delete()
        root = Page.objects.get(depth=1)
        Page.objects.filter(depth__gt=1).delete()
        pages = tree(root, Locale.get_default())
        Page.objects.bulk_create(pages, batch_size=2_000)
        Page.objects.filter(pk=root.pk).update(numchild=1)
        home = Page.objects.get(path=pages[0].path)
        Site.objects.create(hostname=host, port=port, root_page=home, is_default_site=True)


def tree(root: Page, locale: Locale) -> list[Page]:
    """The home, then each section followed by its pages, in the tree's order."""
    page_type = ContentType.objects.get_for_model(Page)
    made: list[Page] = []

    def page(parent_path: str, parent_url: str, step: int, slug: str, children: int) -> Page:
        depth = len(parent_path) // Page.steplen + 1
        published = FIRST_PUBLISHED + dt.timedelta(minutes=len(made))
        made.append(
            Page(
                title=slug,
                draft_title=slug,
                slug=slug,
                content_type=page_type,
                path=Page._get_path(parent_path, depth, step),
                depth=depth,
                numchild=children,
                url_path=f"{parent_url}{slug}/",
                live=True,
                first_published_at=published,
                last_published_at=published,
                latest_revision_created_at=published,
                locale=locale,
                translation_key=uuid.uuid4(),
            )
        )
        return made[-1]

    home = page(root.path, root.url_path, 1, "home", SECTIONS)
    for number in range(1, SECTIONS + 1):
        section = page(home.path, home.url_path, number, f"section-{number}", PER_SECTION)
        for step in range(1, PER_SECTION + 1):
            page(section.path, section.url_path, step, f"page-{number}-{step}", 0)
    return made


class NativeWagtail:
    """This package's page view over the native source, streamed to the end."""

    def setup(self) -> None:
        from django_sitemapkit import views

        ensure_pages()
        if registry.get(WagtailPages.name) is None:
            register(WagtailPages)
        self.view = views.page
        self.path = reverse("sitemapkit:page", kwargs={"section": WagtailPages.name, "page": 1})
        connection.ensure_connection()

    def run(self, check: bool) -> Outcome:
        request = make_request(self.path)  # a new request each time, as a server's
        started = time.perf_counter()
        response = streamed(self.view(request, section=WagtailPages.name, page=1))
        return consume(response, Sink(started, check))


class ContribWagtail:
    """Wagtail's own sitemap view (``wagtail.contrib.sitemaps.views.sitemap``), rendered
    to its full content. Each run gets a new request: Wagtail keeps the request's
    site and the sites' root paths on it, which a server's next request would not
    have."""

    def setup(self) -> None:
        from wagtail.contrib.sitemaps.views import sitemap

        ensure_pages()
        self.view = sitemap
        connection.ensure_connection()

    def run(self, check: bool) -> Outcome:
        request = make_request("/wagtail-sitemap.xml")
        started = time.perf_counter()
        return read_whole(self.view(request), Sink(started, check))


def native_case(plan: Plan) -> NativeWagtail:
    return NativeWagtail()


def contrib_case(plan: Plan) -> ContribWagtail:
    return ContribWagtail()
