"""The plan of a build: each section cut into shards, and which shards to render.

A section read by a key (``sources/keyset.py``) is cut where the build first
saw each ``page_size`` rows begin, and the cuts are kept from one build to the
next: a row inserted or deleted in the middle changes one shard only. One
grouped query per section (``sources/ranges.py``) says what each shard holds
now, and a shard whose rows, newest lastmod and key sum are as recorded in the
manifest keeps its files. A shard grown past ``page_size`` rows is cut again;
one left with no rows goes, its range joining the shard before it.

A section without such a key (static pages, a contrib class, an ordering on
a nullable column) is one shard, rendered again every build; its files keep
their bytes when they come out the same.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.due import full_check_due, left_out_date
from django_sitemapkit.build.fingerprints import section_fingerprint, settings_fingerprint
from django_sitemapkit.build.integrity import Inspection, damaged_sections
from django_sitemapkit.build.manifest import Manifest, Shard, encode_stats
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.reading import misfit, read_manifest, set_aside
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import page_filename, page_number
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.ranges import Key, range_stats, starts

#: A refresh's plan of a section from its recorded shards and the change records
#: (``touched.py``), told which shards left out a date now due, and which a build keeps.
SectionRefresh = Callable[
    [Plan, list[Shard], Callable[[Shard], bool], Callable[[Shard], bool]], "list[PlannedShard]"
]


@dataclass(frozen=True)
class ShardJob:
    """One shard to render: the section, its range, and where it comes in the build."""

    section: str
    number: int
    low: Key | None
    high: Key | None
    #: The number its first page has in the section, as the views number pages;
    #: the log names the page a skipped row was on by it.
    page: int = 1


@dataclass
class PlannedShard:
    section: str
    low: Key | None
    stats: dict[str, Any] | None
    #: The recorded shard whose files are kept as they are; else it is rendered.
    kept: Shard | None = None
    #: The names its files had, given again in order to the files it renders to.
    names: list[str] = field(default_factory=list)
    #: The name of its first file if it had none, given before it is rendered.
    new: str | None = None
    high: Key | None = None
    #: Set by ``to_render()`` on a shard to render.
    job: ShardJob | None = None

    @property
    def given(self) -> list[str]:
        """The names its files are given in order, as far as the plan can tell."""
        return self.names or ([] if self.new is None else [self.new])

    @property
    def rows(self) -> int | None:
        return None if self.stats is None else int(self.stats["rows"])


def plan_section(
    plan: Plan, recorded: list[Shard] | None, keeps: Callable[[Shard], bool]
) -> list[PlannedShard]:
    """The shards of ``plan``'s section: ``recorded`` ones kept or rendered again, or,
    without a record, cut afresh. A recorded shard whose rows are as they were is kept
    if ``keeps`` says so (not in a ``--full`` build, nor with a file damaged)."""
    pager = plan.queryset
    if pager is None or pager.key is None:
        names = [f.name for shard in recorded or [] for f in shard.files]
        if pager is None:
            return [PlannedShard(plan.section, None, None, names=names)]
        whole = encode_stats(range_stats(pager, [None], None)[0])
        if recorded and len(recorded) == 1 and recorded[0].stats == whole and keeps(recorded[0]):
            return [PlannedShard(plan.section, None, whole, kept=recorded[0])]
        return [PlannedShard(plan.section, None, whole, names=names)]
    if not recorded:
        return without_empty(cut(plan, None, None))
    lows = [shard.low for shard in recorded]
    planned: list[PlannedShard] = []
    for i, (shard, now) in enumerate(zip(recorded, range_stats(pager, lows, None), strict=True)):
        high = lows[i + 1] if i + 1 < len(lows) else None
        stats = encode_stats(now)
        if stats == shard.stats and keeps(shard):
            planned.append(PlannedShard(plan.section, shard.low, stats, kept=shard, high=high))
        elif now.rows > plan.page_size:
            pieces = cut(plan, shard.low, high)
            first = pieces[0]
            if first.stats == shard.stats and keeps(shard):
                # The rows were added after the shard's first page_size rows,
                # which are as they were: its files stay, the rest is new.
                first.kept = shard
            else:
                first.names = [f.name for f in shard.files]
            planned += pieces
        else:
            names = [f.name for f in shard.files]
            planned.append(PlannedShard(plan.section, shard.low, stats, names=names, high=high))
    return without_empty(planned)


def cut(plan: Plan, low: Key | None, high: Key | None) -> list[PlannedShard]:
    """The range from ``low`` to ``high`` in shards of ``page_size`` rows."""
    pager = plan.queryset
    assert pager is not None, "only a queryset section is cut into ranges"
    lows = [low, *starts(pager, low, high, plan.page_size)]
    stats = range_stats(pager, lows, high)
    return [
        PlannedShard(
            plan.section,
            start,
            encode_stats(now),
            high=lows[i + 1] if i + 1 < len(lows) else high,
        )
        for i, (start, now) in enumerate(zip(lows, stats, strict=True))
    ]


def without_empty(planned: list[PlannedShard]) -> list[PlannedShard]:
    """``planned`` less its shards with no rows (the range of each joins the shard before
    it; the first shard always starts at the section's start). A section with no rows
    at all keeps one shard, so that it is still recorded."""
    kept = [shard for shard in planned if shard.rows != 0] or planned[:1]
    for earlier, later in itertools.pairwise(kept):
        earlier.high = later.low
    kept[-1].high = None
    if kept[0].low is not None:
        first = kept[0]
        first.low = None
        if first.kept is not None:
            first.kept = replace(first.kept, low=None)
    return kept


def to_render(
    planned: list[PlannedShard], start: int, first_free: int
) -> list[tuple[PlannedShard, ShardJob]]:
    """The shards of ``planned`` to render, each given its job, numbered from ``start``,
    and a name: the names its files had, or the next new number from ``first_free``
    (given before any is rendered, so that a worker may write a new file under its
    name at once; a file beyond those takes a number after all of them)."""
    found: list[tuple[PlannedShard, ShardJob]] = []
    # A shard holds one page of rows (one is cut when it grows past
    # page_size), so its position in the section is its page's number.
    for position, shard in enumerate(planned, 1):
        if shard.kept is None:
            if not shard.names:
                shard.new = page_filename(shard.section, first_free)
                first_free += 1
            number = start + len(found)
            shard.job = ShardJob(shard.section, number, shard.low, shard.high, position)
            found.append((shard, shard.job))
    return found


def next_number(recorded: list[Shard] | None) -> int:
    """The first file number no recorded file of the section has."""
    numbers = [page_number(f.name) or 0 for shard in recorded or [] for f in shard.files]
    return max(numbers, default=0) + 1


@dataclass
class BuildPlan:
    """What a build will do, decided before any file is written (and all a dry run does)."""

    old: Manifest | None
    #: ``old``, if it was built with these settings: its shards can be kept.
    recorded: Manifest | None
    settings: str
    now: dt.datetime
    full: bool
    plans: list[Plan]
    sections: dict[str, str]
    planned: dict[str, list[PlannedShard]]
    #: Each section's recorded shards, if its files were built as they would be now.
    known: dict[str, list[Shard] | None]
    work: list[tuple[Plan, ShardJob]]
    #: What the build found of the published files it would keep.
    inspection: Inspection
    #: Whether the sections were planned by a refresh's records (``--changed``).
    refreshed: bool = False


def plan_build(
    destination: Destination,
    sources: list[BaseSource],
    options: BuildOptions,
    site: SitemapSite,
    partial: bool,
    refresh: SectionRefresh | None = None,
) -> BuildPlan:
    """What a build of ``sources`` does; with ``refresh`` (``--changed``), each section as
    it plans it, but a set it cannot read shard by shard is built as a build does."""
    old = read_manifest(destination.manifest, destination.label)
    settings = settings_fingerprint(site, options)
    plans = [compile_plan(source, site) for source in sources]
    sections = {plan.section: section_fingerprint(plan) for plan in plans}
    if old is not None and (reason := misfit(old, plans, sections)) is not None:
        set_aside(destination.label, reason)
        old = None
    # A set built with other settings (base URL, gzip, limits) is rebuilt whole.
    recorded = old if old is not None and old.fingerprint == settings else None
    if partial and recorded is None:
        raise BuildError(
            f"There is no set in {destination.label} built with these settings to update "
            "one section of; run build_sitemaps without --section once first."
        )
    now = dt.datetime.now(dt.timezone.utc)
    known = {plan.section: known_shards(recorded, plan, sections) for plan in plans}
    if any(shards is None for shards in known.values()):
        refresh = None  # correct first: a set built otherwise is compared whole
    # A refresh leaves the periodic full check to the builds (SITEMAPKIT_FULL_BUILD_EVERY).
    due = refresh is None and recorded is not None and full_check_due(recorded, now)
    full = options.full or due
    # A validating build reads every kept file anyway: it checks their SHA-256
    # first, so that a damaged one is rendered again rather than fail the build.
    inspection = Inspection(destination, thorough=full or options.validate)
    if inspection.thorough and recorded is not None:
        inspection.look_ahead(list(recorded.files()))
    if partial and recorded is not None:
        damaged = [
            compile_plan(source, site)
            for source in damaged_sections(recorded, sources, site, inspection)
        ]
        plans += damaged
        sections.update({plan.section: section_fingerprint(plan) for plan in damaged})
        known.update({plan.section: known_shards(recorded, plan, sections) for plan in damaged})
    planned: dict[str, list[PlannedShard]] = {}
    work: list[tuple[Plan, ShardJob]] = []

    built = None if recorded is None else dt.datetime.fromisoformat(recorded.built)

    def stale(shard: Shard) -> bool:
        return built is not None and left_out_date(shard, built)

    def keeps(shard: Shard) -> bool:
        return not stale(shard) and not full and inspection.shard_intact(shard)

    for plan in plans:
        shards = known[plan.section]
        if refresh is not None and shards is not None:
            planned[plan.section] = refresh(plan, shards, stale, keeps)
        else:
            planned[plan.section] = plan_section(plan, shards, keeps)
        first_free = next_number(known[plan.section])
        work += [(plan, job) for _, job in to_render(planned[plan.section], len(work), first_free)]
    return BuildPlan(
        old,
        recorded,
        settings,
        now,
        full,
        plans,
        sections,
        planned,
        known,
        work,
        inspection,
        refreshed=refresh is not None,
    )


def known_shards(
    recorded: Manifest | None, plan: Plan, sections: dict[str, str]
) -> list[Shard] | None:
    """The recorded shards of ``plan``'s section, if its files were built as they would
    be now (``sections``: each section's fingerprint now)."""
    if recorded is None or recorded.sections.get(plan.section) != sections[plan.section]:
        return None
    return recorded.section_shards(plan.section)
