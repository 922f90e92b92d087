"""Pre-render the sitemap files, then publish the set so no crawler sees a half of it.

The build plans first: each section is cut into shards (``planning.py``),
and the shards the manifest of the published set does not describe as they
are now are rendered to staging (``render.py``). The new set is then put
together (``sets.py``): unchanged files kept, the index written, and a
manifest that describes it all (``manifest.py``). Only when every file is
written, and validated if asked, and what it changes URL by URL compared
where something reads it (``changes.py``: the report, IndexNow) and found
within ``--max-removed`` (``guard.py``), is the set published
(``directory.py``, ``destinations.py``). A failure before that leaves the
published set exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from django_sitemapkit.build.changes import site_changes
from django_sitemapkit.build.dates import warn_touched
from django_sitemapkit.build.destinations import Destination, PublishFailed
from django_sitemapkit.build.guard import RemovalRefused, refuse_removal
from django_sitemapkit.build.losses import refuse_losses
from django_sitemapkit.build.manifest import Manifest
from django_sitemapkit.build.notify import indexnow_changes, notify, record
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.planning import BuildPlan, SectionRefresh, next_number, plan_build
from django_sitemapkit.build.render import Progress, render_shards
from django_sitemapkit.build.report import BuildResult, RenderedShard, SectionBuild, section_builds
from django_sitemapkit.build.sets import (
    Namer,
    NewSet,
    add_section,
    index_entries,
    keep_shard,
    place,
    render_index,
    unchanged,
)
from django_sitemapkit.conf import conf
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.indexnow.submission import Notice
from django_sitemapkit.names import INDEX_FILENAME, SECTION_NAME
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.robots_txt import forget as forget_robots
from django_sitemapkit.sources.declaration import BaseSource

__all__ = [
    "BuildInterrupted",
    "BuildOptions",
    "BuildPlan",
    "BuildResult",
    "EmptySet",
    "PublishFailed",
    "RemovalRefused",
    "SectionBuild",
    "build",
    "plan_build",
]


class BuildInterrupted(BuildError):
    """Ctrl-C (or SIGINT) before anything was published."""


class EmptySet(BuildError):
    """No section gave a single URL: nothing is published."""


def build(
    destination: Destination,
    sources: list[BaseSource],
    options: BuildOptions,
    site: SitemapSite,
    *,
    partial: bool = False,
    jobs: int = 1,
    progress: Progress | None = None,
    done: Callable[[SectionBuild], None] = lambda build: None,
    renderer: Renderer | None = None,
    refresh: SectionRefresh | None = None,
) -> BuildResult:
    """Build ``sources`` of ``site`` into ``destination``; ``partial`` keeps the other
    sections' files as they are.

    ``jobs`` of 2 or more renders shards in that many processes, and
    compresses each gzip sibling on a thread of its own. ``renderer`` renders
    the plan's shards instead (the workers of a distributed build). ``refresh``
    plans each section from the change records (``touched.py``, ``--changed``).
    """
    # A refresh renders the few shards its records touch: its wall time, from the
    # commit to the served file, is theirs, so each .gz is compressed beside them.
    # Not a full build in one process: on the shared 2-core machine the thread
    # took 10 % more CPU and no less wall time (docs/performance.md, "Faster builds").
    threaded = options.gzip_in_thread or jobs > 1 or refresh is not None
    options = replace(options, gzip_in_thread=threaded)
    refuse_unsafe_names(sources)
    # Each build reads the site's robots.txt afresh, once (SITEMAPKIT_ROBOTS).
    forget_robots()
    with destination.lock():
        try:
            render = renderer or local_renderer(site, options, jobs, progress)
            result, notice = build_locked(
                destination, sources, options, site, partial, render, refresh
            )
        except BaseException as exc:
            error = failed(destination, exc)
            if error is exc:
                raise
            raise error from exc
    for section in result.sections:
        done(section)
    if notice is not None:
        # After the lock: a slow endpoint never keeps the next build out (notify.py).
        try:
            result.indexnow = notify(site, notice)
        except KeyboardInterrupt as exc:
            raise BuildInterrupted(
                f"Interrupted while sending to IndexNow. The new set of {destination.label} "
                "was published; the URLs not sent are left pending for the next build."
            ) from exc
    return result


def build_locked(
    destination: Destination,
    sources: list[BaseSource],
    options: BuildOptions,
    site: SitemapSite,
    partial: bool,
    renderer: Renderer,
    refresh: SectionRefresh | None = None,
) -> tuple[BuildResult, Notice | None]:
    """The new set, published; and what its notification is to send, kept in the
    IndexNow record before the publish, so that a build that dies after it loses
    nothing."""
    plan = plan_build(destination, sources, options, site, partial, refresh)
    old, recorded, now = plan.old, plan.recorded, plan.now
    rendered = {shard.job.number: shard for shard in renderer(plan, destination)}
    warn_touched(plan, rendered)
    published = {f.name: f for f in old.files()} if old is not None else {}
    new = NewSet(plan.inspection, options.gzip_links)
    for section in section_order(site, old):
        if section in plan.planned:
            namer = Namer(section, next_number(plan.known[section]))
            add_section(new, plan.planned[section], rendered, namer, destination, published)
        elif partial and recorded is not None:
            for shard in recorded.section_shards(section):
                keep_shard(new, shard, destination)
    refuse_losses(site, [s for s in sources if type(s).name in plan.planned], new.shards)
    entries = index_entries(site, new.shards, options)
    if not entries:
        raise EmptySet(empty_message(destination, old))
    index = render_index(destination, entries, options)
    place(new, index, destination, published.get(INDEX_FILENAME))
    kept_sections = recorded.sections if partial and recorded is not None else {}
    manifest = Manifest(
        site=site.base_url,
        fingerprint=plan.settings,
        sections={**kept_sections, **plan.sections},
        shards=tuple(new.shards),
        index=index,
        built=now.isoformat(),
        full_check=now.isoformat() if plan.full or recorded is None else recorded.full_check,
    )
    names = manifest.names()
    earlier = old.names() if old is not None else set(destination.names())
    result = BuildResult(
        section_builds(manifest, list(rendered.values()), list(plan.planned)),
        index,
        manifest,
        unchanged=list(new.kept),
        removed=sorted(earlier - names),
    )
    if options.validate:
        from django_sitemapkit.build.validation import validate_set

        validate_set(destination, new.written, new.kept)
    sending = options.indexnow and conf.INDEXNOW_KEY is not None
    # Only where something reads them: IndexNow compares with a set built with
    # these settings alone (after a new base URL, every URL would be sent).
    guarded = old is not None and options.max_removed is not None
    if options.report or guarded or (sending and recorded is not None):
        result.changes = site_changes(destination, old, manifest, new.written, result.removed)
    if not new.written and not result.removed and unchanged(manifest, old):
        return result, None
    refuse_removal(site, destination, result.changes, options.max_removed)
    changed = indexnow_changes(result.changes) if sending and recorded is not None else None
    notice = record(site, destination, changed) if changed is not None else None
    destination.publish(new.written, manifest.to_json(), result.removed)
    result.published = destination.published = True
    result.replaced = list(new.written)
    if sending and changed is None:
        result.indexnow_skipped = (
            "IndexNow: nothing sent, as there was no earlier set built with these settings "
            "to compare with (the next build sends what it changes)."
        )
    return result, notice


#: Renders the shards of a plan to the destination's staging, in the plan's order.
Renderer = Callable[[BuildPlan, Destination], list[RenderedShard]]


def local_renderer(
    site: SitemapSite, options: BuildOptions, jobs: int, progress: Progress | None
) -> Renderer:
    """The shards rendered here, or in ``jobs`` forked processes."""

    def render(plan: BuildPlan, destination: Destination) -> list[RenderedShard]:
        return render_shards(plan.work, site, destination.staging, options, jobs, progress)

    return render


def section_order(site: SitemapSite, old: Manifest | None) -> list[str]:
    """The site's sections in the registry's order, then those only the manifest has."""
    order = [type(source).name for source in registry.sections(site)]
    if old is not None:
        order += [shard.section for shard in old.shards]
    return list(dict.fromkeys(order))


def empty_message(destination: Destination, old: Manifest | None) -> str:
    published = (
        f"{destination.label} still has the set it had"
        if old is not None or destination.names()
        else f"nothing was written to {destination.label}"
    )
    return (
        "No sitemap section has a single URL (no rows, or none valid): nothing was "
        f"published, and {published}. An index must list at least one sitemap, and an "
        "empty database is more often a mistake (another DATABASES, a failed import) than "
        "a site without pages; add rows, or fix the sources, then build again."
    )


def failed(destination: Destination, exc: BaseException) -> BaseException:
    """The one-line ``BuildError`` a failed build raises; the exception itself if it is
    neither an error nor an interruption."""
    untouched = (
        f"The new set was published to {destination.label} before it."
        if destination.published
        else f"Nothing was published: the files in {destination.label} are as they were."
    )
    if isinstance(exc, EmptySet | PublishFailed | RemovalRefused):
        return exc
    if isinstance(exc, KeyboardInterrupt):
        return BuildInterrupted(f"Interrupted. {untouched}")
    if isinstance(exc, BuildError):
        reason = str(exc)
    elif isinstance(exc, OSError):
        text = exc.strerror or str(exc)
        detail = f"{text} ({exc.filename})" if exc.filename else text
        reason = f"Cannot write to {destination.label}: {detail}."
    elif isinstance(exc, Exception):
        reason = f"{type(exc).__name__}: {exc}"
    else:
        return exc
    return BuildError(f"{reason} {untouched}")


def refuse_unsafe_names(sources: list[BaseSource]) -> None:
    """The system checks refuse these names (sitemapkit.E007), but a build may run
    without them (``--skip-checks``, ``call_command()``): a name such as
    ``"x/../../y"`` must never become part of a path."""
    for source in sources:
        cls = type(source)
        if not isinstance(cls.name, str) or not SECTION_NAME.fullmatch(cls.name):
            raise BuildError(
                f"Sitemap source {cls.__module__}.{cls.__qualname__} has the section name "
                f"{cls.name!r}, which cannot appear safely in a file name (sitemapkit.E007); "
                "set name to 1 to 64 ASCII letters, digits, '-' or '_', starting with a letter "
                "or digit."
            )
