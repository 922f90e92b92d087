"""Page types that override get_sitemap_urls() (wagtail/fallback.py): their rows' URLs
come from the method, and only their rows become page instances."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models.signals import post_init
from sitemap_xml import ExtendedUrl
from wagtail.models import Page

from django_sitemapkit.wagtail import WagtailSource
from thirdparty import wagtail_tree
from thirdparty.pages.models import EventPage
from thirdparty.wagtail_reading import listed, serving

pytestmark = pytest.mark.django_db

WWW = "https://www.example.com"


class Pages(WagtailSource):
    name = "pages"


def add_event(parent: Page, slug: str) -> EventPage:
    event = EventPage(title=slug, slug=slug, last_published_at=wagtail_tree.published(3))
    Page.objects.get(pk=parent.pk).add_child(instance=event)
    return event


def test_a_page_type_of_its_own_lists_the_urls_of_its_method_in_the_tree_order() -> None:
    project = wagtail_tree.project(sections=2, per_section=2, translated=0, blog_pages=1)
    add_event(project.sections[0], "event")
    with serving(Pages):
        urls = [url for url in listed("www.example.com") if "/s0/" in url.loc]
    assert urls == [
        ExtendedUrl(f"{WWW}/s0/", "2026-01-01T12:00:00+00:00"),
        ExtendedUrl(f"{WWW}/s0/p0-0/", "2026-01-01T12:00:00+00:00"),
        ExtendedUrl(f"{WWW}/s0/p0-1/", "2026-01-02T12:00:00+00:00"),
        ExtendedUrl(f"{WWW}/s0/event/", "2026-01-04T12:00:00+00:00"),
        ExtendedUrl(f"{WWW}/s0/event/past/", None, "yearly"),
    ]


def test_only_the_rows_of_those_types_become_instances() -> None:
    project = wagtail_tree.project(sections=2, per_section=300, translated=0, blog_pages=1)
    event = add_event(project.sections[1], "event")
    made: list[Page] = []

    def count(sender: type[object], instance: object, **kwargs: object) -> None:
        if isinstance(instance, Page):
            made.append(instance)

    post_init.connect(count)
    try:
        with serving(Pages):
            urls = listed("www.example.com")
    finally:
        post_init.disconnect(count)
    assert len(urls) == 1 + 2 + 600 + 2 + 1
    # Besides the sites' root pages (read as each plan is compiled), the
    # event's row alone, as its own type.
    roots = {project.home.pk, project.accueil.pk, project.blog_home.pk}
    assert {(type(page), page.pk) for page in made if page.pk not in roots} == {
        (EventPage, event.pk)
    }


def test_a_value_the_protocol_refuses_is_left_out_and_the_url_kept(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A page type's own ``get_sitemap_urls()`` that writes a priority of 0 to 10 and a
    date as text: each value is left out, each URL kept."""
    project = wagtail_tree.project(sections=1, per_section=0, translated=0, blog_pages=0)
    event = add_event(project.sections[0], "event")

    def get_sitemap_urls(self: EventPage, request: Any = None) -> list[dict[str, Any]]:
        url = self.get_full_url(request)
        return [
            {"location": url, "lastmod": "2026-01-04", "priority": 5},
            {"location": f"{url}past/", "changefreq": "yearly", "priority": 5},
        ]

    monkeypatch.setattr(EventPage, "get_sitemap_urls", get_sitemap_urls)
    with serving(Pages):
        urls = [url for url in listed("www.example.com") if "/event/" in url.loc]
    assert urls == [
        ExtendedUrl(f"{WWW}/s0/event/"),
        ExtendedUrl(f"{WWW}/s0/event/past/", None, "yearly"),
    ]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"Left out the lastmod of pk={event.pk} of source 'pages': '2026-01-04' is not a date "
        "or datetime.",
        f"Left out the priority of pk={event.pk} of source 'pages': 5 is outside 0.0 to 1.0.",
    ]
