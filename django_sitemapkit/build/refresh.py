"""A refresh: the pending change records (``changes/records.py``) applied to every
site's built files, then marked applied.

Each site with built files (``SITEMAPKIT_OUTPUT_DIR`` or ``SITEMAPKIT_STORAGE``)
whose sections read a model of the records is built as ``build_sitemaps`` builds
it, under its lock, but each section is planned from the records (``touched.py``):
only the shards they touch are read and rendered, the set is published whole, and
IndexNow is sent the URLs of the rewritten pages that changed. A site whose published
set lists other sections than its sources declare now is built too, whatever the
records name, so that a removed section's files go as a build removes them. The records are
marked applied only once every site's set is published or found unchanged; a failure
leaves them pending, and each site's last good set.

Two refreshes at once may read the same records: each plans under its site's
lock, from the set the other published, and a shard rendered again to the same
bytes keeps its file and tells IndexNow nothing, so applying a record twice
changes nothing. Records committed after they were read stay for the next one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django_sitemapkit.build import build
from django_sitemapkit.build.console import failed_sites
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.directory import destination_for
from django_sitemapkit.build.options import BuildOptions, RemovalLimit
from django_sitemapkit.build.reading import read_manifest
from django_sitemapkit.build.report import BuildResult
from django_sitemapkit.build.selection import selected_sites, site_builds
from django_sitemapkit.build.touched import Touched
from django_sitemapkit.changes import records
from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.conf import conf
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.places import files_place
from django_sitemapkit.sources.declaration import BaseSource

logger = logging.getLogger("django_sitemapkit")
#: The most records one refresh applies; the rest wait for the next.
MOST_RECORDS = 100_000


@dataclass(frozen=True)
class Refreshed:
    """What a refresh did: how many records it applied (0: there were none)."""

    records: int
    #: The sites whose new set it published (none: every set was as the rows are).
    published: tuple[str, ...] = ()
    #: The shards it rendered, on every site.
    rendered: int = 0


def refresh_changes(*, limit: int = MOST_RECORDS, output: str | None = None) -> Refreshed:
    """Apply the oldest ``limit`` pending records to every site's built files (in
    ``output``, else where ``build_sitemaps`` writes them), and mark them applied once
    every site's set is published; raise ``BuildError`` (the records stay pending) if a site's
    refresh fails."""
    found = records.pending(limit)
    if not found.ids:
        return Refreshed(0)
    touched = Touched(found)
    results = refresh_sites(touched, settings_options(), output)
    records.applied(found.ids)
    published = tuple(name for name, result in results.items() if result.published)
    rendered = sum(section.rendered for r in results.values() for section in r.sections)
    return Refreshed(len(found.ids), published, rendered)


def refreshes(
    touched: Touched, site: SitemapSite, sources: list[BaseSource], destination: Destination
) -> bool:
    """Whether a refresh builds ``site``: a section of ``sources`` reads a model of the
    records, or the published set's sections are not those ``sources`` declare."""
    if touched.reads(site, sources):
        return True
    # Quiet: a set that cannot be read is the next build's to set aside, and say so.
    published = read_manifest(destination.manifest, destination.label, quiet=True)
    declared = {type(source).name for source in sources}
    return published is not None and set(published.sections) != declared


def refresh_sites(
    touched: Touched, options: BuildOptions, output: str | None
) -> dict[str, BuildResult]:
    """Each site's set, refreshed; a ``BuildError`` naming the sites that failed."""
    results: dict[str, BuildResult] = {}
    failures: list[str] = []
    sites, _ = selected_sites(None)
    for each in site_builds(sites, None):
        if files_place(each.site, output) is None:
            # No built files (the views serve from the database): nothing to render.
            continue
        try:
            destination = destination_for(each.site, output)
            if not refreshes(touched, each.site, each.sources, destination):
                continue
            results[each.site.name] = build(
                destination, each.sources, options, each.site, refresh=touched
            )
        except Exception as exc:
            if not isinstance(exc, BuildError):
                logger.exception("The refresh of site %r failed.", each.site.name)
            failures.append(f"{each.site.name!r} ({each.site.base_url}): {exc}")
    if failures:
        raise BuildError(failed_sites(failures, len(results), dry_run=False))
    return results


def settings_options() -> BuildOptions:
    """The options of a ``build_sitemaps`` run given none: the settings'."""
    return BuildOptions(gzip=conf.GZIP, gzip_links=conf.GZIP_LINKS, max_removed=setting_limit())


def setting_limit() -> RemovalLimit | None:
    """``SITEMAPKIT_MAX_REMOVED``, judged here too: a build run from code skips the
    system checks."""
    for error in check_values("MAX_REMOVED"):
        raise BuildError(f"{error.msg} {error.hint} ({error.id})")
    setting = conf.MAX_REMOVED
    return None if setting is None else RemovalLimit(setting, "SITEMAPKIT_MAX_REMOVED")
