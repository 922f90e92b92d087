"""After a publish: the URLs it added, changed or removed, sent to IndexNow
(``indexnow/``). Nothing here can fail the build: the set is published first."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.manifest import Manifest
from django_sitemapkit.indexnow import Submission, changes, submit
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


def notify(site: SitemapSite, destination: Destination, changed: dict[str, str]) -> Submission:
    return submit(site, changed, destination.record())
