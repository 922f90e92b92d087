"""What a Wagtail page's change records (django_sitemapkit/wagtail/changes.py): its own
row, where a move took it from, and every page when the URLs below it changed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import override_settings
from wagtail.models import Page

from django_sitemapkit import registry
from django_sitemapkit.changes import records
from django_sitemapkit.changes.records import Changed
from django_sitemapkit.models import Change
from django_sitemapkit.wagtail import WagtailSource
from thirdparty.pages.models import ArticlePage

pytestmark = pytest.mark.django_db
PAGE = "wagtailcore.page"


class Pages(WagtailSource):
    name = "pages"


@pytest.fixture(autouse=True)
def capturing() -> Iterator[None]:
    registry.register(Pages)
    try:
        with override_settings(SITEMAPKIT_CHANGES="record"):
            yield
    finally:
        registry.unregister(Pages)


def recorded() -> list[Changed]:
    found = records.pending(1000).changes
    return [Changed(0, c.model, c.row, c.befores, c.placed, c.saves) for c in found]


def tree() -> tuple[Page, Page, Page]:
    root = Page.get_first_root_node()
    section = root.add_child(instance=ArticlePage(title="s", slug="s"))
    leaf = section.add_child(instance=ArticlePage(title="a", slug="a"))
    other = root.add_child(instance=ArticlePage(title="o", slug="o"))
    Change.objects.all().delete()
    return Page.objects.get(pk=section.pk), Page.objects.get(pk=leaf.pk), other


def test_a_new_slug_of_a_leaf_records_its_row() -> None:
    _, leaf, _ = tree()
    page = leaf.specific
    page.slug = "b"
    page.save()
    (change,) = recorded()
    assert (change.model, change.row, change.placed) == (PAGE, leaf.pk, True)
    # Its place in the section's order (path) as it was, and the URL it had.
    assert change.befores == ({"path": leaf.path, "url_path": leaf.url_path},)


def test_a_new_slug_of_a_page_with_children_records_every_page() -> None:
    section, _, _ = tree()
    page = section.specific
    page.slug = "t"
    page.save()
    # Its own row's change is in that of every page.
    assert [(c.model, c.row) for c in recorded()] == [(PAGE, None)]


def test_a_move_records_where_the_page_was() -> None:
    _, leaf, other = tree()
    old_path = leaf.path
    leaf.move(other, pos="last-child")
    moved = Page.objects.get(pk=leaf.pk)
    assert moved.path != old_path
    (change,) = recorded()
    # Where it was before the move, and from where it is now: its row, saved after it,
    # in one record.
    assert (change.model, change.row) == (PAGE, leaf.pk)
    assert {"path": old_path} in change.befores
