"""What a worker does with a shard job: render it from the database into the
storage every machine shares, under the build's staging names.

Engines call ``run_shard()`` with the job's JSON and send back what it
returns. The same rows give the same bytes, so a shard rendered twice (its
worker lost, the job sent again) stages the same files twice, harmlessly.
"""

from __future__ import annotations

import os
import resource
import socket
import sys
import tempfile
import time
from dataclasses import replace
from typing import Any

from django.core.files.storage import Storage, storages

from django_sitemapkit.build.destinations import Staging
from django_sitemapkit.build.fingerprints import section_fingerprint, settings_fingerprint
from django_sitemapkit.build.manifest import ManifestFile
from django_sitemapkit.build.render import render_shard
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.build.routes import urls_fingerprint
from django_sitemapkit.build.selection import selected_sites
from django_sitemapkit.build.validation import validate_staged
from django_sitemapkit.distributed import objects
from django_sitemapkit.distributed.jobs import ShardTask, Worker, from_payload, result_payload
from django_sitemapkit.distributed.staging import MARKER, STAGING_DIRECTORY, build_wanted
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.places import files_place
from django_sitemapkit.sites.robots_txt import forget as forget_robots
from django_sitemapkit.sources.plan import Plan, compile_plan

#: What each fingerprint of a job covers, and what to deploy when one differs.
FINGERPRINTS = {
    "urls": ("URL patterns (ROOT_URLCONF and what it includes)", "the same URLconf"),
    "section": ("code or settings", "the same code and settings"),
    "settings": ("settings", "the same code and settings"),
}


def run_shard(payload: dict[str, Any]) -> dict[str, Any]:
    """Render the shard ``payload`` describes; its result, as JSON."""
    started = time.time()
    task = from_payload(payload)
    (site,), _ = selected_sites([task.site])
    source = registry.get(task.job.section, site)
    if source is None:
        raise BuildError(
            f"This worker has no section {task.job.section!r} for site {task.site!r}: deploy "
            "the coordinator's code to the workers."
        )
    # The job's robots.txt is the one the coordinator read for the build, not a
    # copy this process kept from an earlier job (the settings fingerprint tells).
    forget_robots()
    plan = compile_plan(source, site)
    check_fingerprints(task, plan, site)
    check_place(task, site)
    storage = storages[task.storage]
    with tempfile.TemporaryDirectory(prefix="sitemapkit-shard-") as directory:
        staging = Staging(directory)
        rendered = render_shard(plan, task.job, staging, task.options, site=site)
        if task.validate:
            validate_staged(staging, [name for file in rendered.files for name in file.names()])
        # A build that failed or ended meanwhile has removed its marker: its
        # staging is being deleted, and must not fill up again.
        check_wanted(task, storage, [])
        uploaded = upload(task, storage, staging, rendered, place_of(site))
        # Asked again once the files are up: the coordinator removes the marker
        # before it lists the staging to delete it, so a build that ended during
        # the upload either sees these files in its listing or is seen here, and
        # they are removed by one side or the other, never left behind.
        check_wanted(task, storage, uploaded)
    worker = Worker(socket.gethostname(), os.getpid(), started, time.time(), peak_rss())
    return result_payload(task, rendered, worker, rendered.stats)


def upload(
    task: ShardTask, storage: Storage, staging: Staging, rendered: RenderedShard, prefix: str
) -> list[str]:
    """Upload the shard's files, each under its name in the set where the job gives it
    one (a name the storage had not: no index names it yet), or else staged; each
    file's record then names it as uploaded. The names uploaded, in the storage."""
    uploaded: list[str] = []
    for number, file in enumerate(rendered.files):
        name = task.names[number] if number < len(task.names) else None
        if name is not None:
            placed = replace(file, name=name)
            if put(task, storage, staging, file, prefix, placed, uploaded):
                rendered.files[number] = placed
                continue
        put(task, storage, staging, file, task.staging, file, uploaded)
    return uploaded


def put(
    task: ShardTask,
    storage: Storage,
    staging: Staging,
    file: ManifestFile,
    where: str,
    stored: ManifestFile,
    uploaded: list[str],
) -> bool:
    """Upload ``file``, and its gzip sibling, as ``stored`` under ``where``; ``False`` if
    written in place and the storage has a file of that name (S3 says so): the file
    is then staged instead, and the copy at the publish replaces it."""
    label = f"storage {task.storage!r}"
    only_new = where != task.staging
    for (name, _, sha256), (target, _, _) in zip(file.digests(), stored.digests(), strict=True):
        if not objects.upload(
            storage, where + target, staging.path(name), sha256, label, only_new=only_new
        ):
            return False
        uploaded.append(where + target)
    return True


def place_of(site: SitemapSite) -> str:
    """Where this worker's settings keep the site's files in the storage (``check_place()``
    has seen that they do)."""
    place = files_place(site)
    assert place is not None
    return place.prefix


def check_wanted(task: ShardTask, storage: Storage, uploaded: list[str]) -> None:
    """Refuse to stage for a build that is over, removing what was ``uploaded`` for it."""
    if build_wanted(storage, task.staging):
        return
    for stored_name in uploaded:
        storage.delete(stored_name)
    raise BuildError(
        f"The build of {task.describe()} is over ({task.staging}{MARKER} is gone): "
        "its files were not uploaded."
    )


def check_fingerprints(task: ShardTask, plan: Plan, site: SitemapSite) -> None:
    """Refuse to render with other code, settings or URL patterns than the coordinator
    planned with."""
    found = {
        "urls": urls_fingerprint(plan),
        "section": section_fingerprint(plan),
        "settings": settings_fingerprint(site, task.options),
    }
    planned = {"urls": task.urls, "section": task.section, "settings": task.settings}
    # The URL patterns first: the section's fingerprint covers them too, and the
    # message then says what differs.
    for what, (other, deploy) in FINGERPRINTS.items():
        if found[what] != planned[what]:
            raise BuildError(
                f"This worker ({socket.gethostname()}) would render {task.describe()} with "
                f"other {other} than the coordinator planned with ({what} fingerprint "
                f"{found[what]} here, {planned[what]} there): deploy {deploy} to the "
                "coordinator and the workers."
            )


def check_place(task: ShardTask, site: SitemapSite) -> None:
    """Refuse to stage anywhere but where this worker's settings keep the site's files
    (``sites.places``, the rule the coordinator and the views follow too)."""
    place = files_place(site)
    staging = None if place is None else f"{place.prefix}{STAGING_DIRECTORY}/"
    if place is None or task.storage != place.storage or not task.staging.startswith(staging or ""):
        here = (
            "nowhere"
            if place is None
            else f"in {place.setting} {place.storage!r}, staged under {staging!r}"
        )
        raise BuildError(
            f"This worker ({socket.gethostname()}) would stage {task.describe()} in storage "
            f"{task.storage!r} under {task.staging!r}, but its settings keep the site's files "
            f"{here}: deploy the same settings to the coordinator and the workers."
        )


def peak_rss() -> int:
    """The largest resident set this process has had, in bytes (Linux counts KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024
