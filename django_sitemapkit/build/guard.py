"""``--max-removed`` (or ``SITEMAPKIT_MAX_REMOVED``): a build that would remove more
than a share of a site's URLs is refused before anything is published, so that
an accidental filter on a queryset cannot take a site out of its sitemaps.

The share is of the URLs the published set lists (its manifest's count) that
the new set no longer lists (``changes.py``), per site. A build with no
published set to compare with (the first) is never refused. Where the
published pages could not be read back, the drop in the number of URLs stands
for the URLs removed: never more than them, so the guard errs on publishing.
The build refuses while it holds its lock, before the IndexNow record and the
published files are touched: its staged files are discarded as a failed
build's are.
"""

from __future__ import annotations

import math

from django_sitemapkit.build.changes import SiteChanges
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.options import RemovalLimit
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sites.configured import SitemapSite


class RemovalRefused(BuildError):
    """A build that would remove more of the site's URLs than its limit allows; what it
    would have changed is ``changes``, for the report."""

    def __init__(self, message: str, changes: SiteChanges) -> None:
        super().__init__(message)
        self.changes = changes


def refuse_removal(
    site: SitemapSite,
    destination: Destination,
    changes: SiteChanges | None,
    limit: RemovalLimit | None,
) -> None:
    """Raise ``RemovalRefused`` if publishing would remove more than ``limit`` of the
    URLs the published set lists."""
    if limit is None or changes is None or changes.previous is None:
        return
    counts = changes.counts()
    before, after, added = counts["before"] or 0, counts["after"] or 0, counts["added"]
    if counts["removed"] is not None:
        removed, at_least = counts["removed"], ""
    else:
        removed, at_least = max(before - after, 0), "at least "
    # No division: a share exactly at the limit is never lost to rounding.
    if before == 0 or removed * 100 <= limit.percent * before:
        return
    share = removed * 100 / before
    new = "" if added is None else f", {added:,} of them new"
    raise RemovalRefused(
        f"Refused to publish the sitemaps of site {site.name!r} ({site.base_url}): the "
        f"build would remove {at_least}{removed:,} of the {before:,} URLs they list "
        f"({share:.3g} %), more than the {limit.percent:g} % that {limit.source} allows "
        f"(they would list {after:,} URLs{new}). Nothing was published: the files in "
        f"{destination.label} are as they were. If the removal is intended, build again "
        f"with --max-removed {math.ceil(share)} or more.",
        changes,
    )
