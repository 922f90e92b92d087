"""What a Wagtail page's change records besides its own row (``SITEMAPKIT_CHANGES``).

A page's URL is its parent's with its slug added (``url_path``). A new slug,
or a move, changes the URL of every page below it, which Wagtail updates
with one ``UPDATE`` and no signal: so a page with children whose ``url_path``
changed records every page (the refresh renders the section's files again).
A move changes ``path``, the section's key, with treebeard's own SQL before
the page is loaded again and saved, so where it was is recorded from
``pre_page_move``.
"""

from __future__ import annotations

from typing import Any

from django.db import router
from wagtail.models import Page
from wagtail.signals import pre_page_move

from django_sitemapkit.changes import records
from django_sitemapkit.changes.capture import watch
from django_sitemapkit.changes.schedule import ask_refresh
from django_sitemapkit.changes.watch import CASCADES, label
from django_sitemapkit.conf import conf
from django_sitemapkit.wagtail.source import WagtailSource


def reaches_below(page: Any, kept: dict[str, Any]) -> bool:
    """Whether the save changed the URL of pages below ``page``."""
    moved = kept.get("url_path") != page.url_path or kept.get("path") != page.path
    return bool(page.numchild) and moved


def moving(sender: type[Page], instance: Page, **kwargs: Any) -> None:
    """Record where the page was: treebeard moves it (and its subtree) in SQL."""
    if conf.CHANGES is None or not watch().of(type(instance)):
        return
    using = router.db_for_write(Page, instance=instance)
    before = {"path": instance.path}
    rows: list[tuple[str, Any, dict[str, Any] | str | None]] = [(label(Page), instance.pk, before)]
    if instance.numchild:
        rows.append((label(Page), None, None))
    records.write(using, rows)
    ask_refresh(using)


CASCADES.append((WagtailSource, ("url_path",), reaches_below))
pre_page_move.connect(moving, dispatch_uid="django_sitemapkit.wagtail.changes")
