"""``build_sitemaps --changed``: the options it refuses, the records it reads before
the sites are built, and those it deletes after (``refresh.py`` for code)."""

from __future__ import annotations

from typing import Any

from django_sitemapkit.build.console import Output
from django_sitemapkit.build.refresh import MOST_RECORDS
from django_sitemapkit.build.touched import Touched
from django_sitemapkit.changes import records
from django_sitemapkit.conf import conf
from django_sitemapkit.exceptions import BuildError

#: The options ``--changed`` is not given with, and why.
REFUSED = {
    "full": "--full renders every shard, --changed only those the records touch",
    "section": "a refresh applies each record to every section it touches: a section "
    "left out would stay stale once the record is applied",
    "site": "a refresh applies each record to every site: a site left out would stay "
    "stale once the record is applied",
    "via": "the records' shards are rendered in this process (few, as the change is)",
}


def changed_records(output: Output, options: dict[str, Any]) -> Touched | None:
    """The pending records and what they touch; ``None`` (said) when none is pending."""
    for name, why in REFUSED.items():
        if options[name] not in (None, False):
            raise BuildError(f"--changed cannot be given with --{name}: {why}. Drop one.")
    if conf.CHANGES is None:
        raise BuildError(
            "--changed renders what the change records name, and none is being written: "
            "SITEMAPKIT_CHANGES is None. Set it to 'record' (and run migrate), or run "
            "build_sitemaps without --changed."
        )
    pending = records.pending(MOST_RECORDS)
    if not pending.ids:
        output.info("Nothing to do: no change record is pending.")
        return None
    touched = Touched(pending)
    if options["dry_run"]:
        output.info(f"{len(pending.ids):,} change record(s) pending.")
    return touched


def applied(output: Output, touched: Touched) -> None:
    """Delete the records, every site's set being published or as the rows are."""
    records.applied(touched.ids)
    output.info(f"Applied {len(touched.ids):,} change record(s).")
