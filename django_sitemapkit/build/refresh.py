"""A refresh: the pending change records (``changes/records.py``) applied to every
site's built files, then deleted.

FIRST VERSION, to be replaced by the refresh of issue 31's "refresh" part: it
runs the whole incremental build of every site (``build_sitemaps``), which is
correct but compares every shard. The signature stays.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.management import call_command

from django_sitemapkit.changes import records

#: The most records one refresh applies; the rest wait for the next.
MOST_RECORDS = 100_000


@dataclass(frozen=True)
class Refreshed:
    """What a refresh did: how many records it applied (0: there were none)."""

    records: int


def refresh_changes(*, limit: int = MOST_RECORDS) -> Refreshed:
    """Apply the oldest ``limit`` pending records to every site's built files, and delete
    them once every site's set is published; raise ``BuildError`` (the records stay
    pending) if a site's refresh fails."""
    found = records.pending(limit)
    if not found.ids:
        return Refreshed(0)
    call_command("build_sitemaps", verbosity=0)
    records.applied(found.ids)
    return Refreshed(len(found.ids))
