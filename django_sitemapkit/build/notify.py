"""The URLs a publish added, changed or removed, sent to IndexNow (``indexnow/``).

They are read from the staged and the published files before the publish,
and kept in the IndexNow record while the build lock is held (``keep()``:
quick, no request); they are sent after the lock is released (``notify()``),
within ``SITEMAPKIT_INDEXNOW_DEADLINE``, so that however slow the endpoint,
the next build can start. Nothing here can fail the build."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.manifest import Manifest
from django_sitemapkit.indexnow import Submission, changes
from django_sitemapkit.indexnow.notification import send
from django_sitemapkit.indexnow.submission import Notice, keep
from django_sitemapkit.names import section_of
from django_sitemapkit.sites.configured import SitemapSite

logger = logging.getLogger("django_sitemapkit")


def changed_urls(
    destination: Destination, recorded: Manifest | None, written: list[str], removed: list[str]
) -> dict[str, str] | None:
    """What the staged set changes against the published one, read before it is
    published; ``None`` when there is nothing to compare with: no set built with these
    settings (a first build, or one after the base URL changed, would send every URL)."""
    if recorded is None:
        return None
    # The pages only (not the index), and each once: its .gz holds the same URLs.
    rewritten = [name for name in written if is_page(name)]
    earlier = recorded.names()
    try:
        return changes(
            published(destination, [n for n in rewritten + removed if n in earlier and is_page(n)]),
            (destination.read_staged(name) for name in rewritten),
        )
    except (ValueError, OSError) as exc:
        logger.error(
            "IndexNow: the changes of this build could not be read (%s: %s); nothing is sent "
            "for them.",
            type(exc).__name__,
            exc,
        )
        return None


def is_page(name: str) -> bool:
    return name.endswith(".xml") and section_of(name) is not None


def published(destination: Destination, names: list[str]) -> Iterator[bytes]:
    """The published files ``names``, one at a time."""
    for name in names:
        content = destination.read(name)
        if content is not None:
            yield content


def record(site: SitemapSite, destination: Destination, changed: dict[str, str]) -> Notice:
    """Keep ``changed`` in the destination's record, for the notification to send."""
    return keep(site, changed, destination.record())


def notify(site: SitemapSite, notice: Notice) -> Submission:
    return send(site, notice, sleep=time.sleep)
