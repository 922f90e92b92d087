"""The URLs a publish added, changed or removed, sent to IndexNow (``indexnow/``).

They are read from the staged and the published files before the publish
(``changes.py``), and kept in the IndexNow record while the build lock is held (``keep()``:
quick, no request); they are sent after the lock is released (``notify()``),
within ``SITEMAPKIT_INDEXNOW_DEADLINE``, so that however slow the endpoint,
the next build can start. Nothing here can fail the build."""

from __future__ import annotations

import time

from django_sitemapkit.build.changes import SiteChanges
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.indexnow import Submission
from django_sitemapkit.indexnow.notification import send
from django_sitemapkit.indexnow.submission import Notice, keep
from django_sitemapkit.sites.configured import SitemapSite


def indexnow_changes(changes: SiteChanges | None) -> dict[str, str] | None:
    """What IndexNow is told of ``changes``; ``None`` when they could not be read."""
    return changes.states() if changes is not None and changes.compared else None


def record(site: SitemapSite, destination: Destination, changed: dict[str, str]) -> Notice:
    """Keep ``changed`` in the destination's record, for the notification to send."""
    return keep(site, changed, destination.record())


def notify(site: SitemapSite, notice: Notice) -> Submission:
    return send(site, notice, sleep=time.sleep)
