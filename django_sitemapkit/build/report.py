"""What a build did: the shards it rendered, its set per section and what it changed,
for the command's summary and its report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django_sitemapkit.build.changes import SiteChanges
from django_sitemapkit.build.manifest import Manifest, ManifestFile
from django_sitemapkit.build.planning import ShardJob
from django_sitemapkit.indexnow import Submission


@dataclass
class RenderedShard:
    """What rendering one shard gave: its files, under their staged names until the
    build names them."""

    job: ShardJob
    files: list[ManifestFile] = field(default_factory=list)
    rows: int = 0
    skipped: int = 0
    seconds: float = 0.0
    #: Files that ended at the byte limit, and pages of rows with no valid entry.
    byte_cuts: int = 0
    empty_pages: int = 0
    #: The stats of the rows as they were read to render it (``render.shard_stats()``);
    #: ``None`` for a section whose rows are not a queryset.
    stats: dict[str, Any] | None = None
    #: The rows written with a ``<lastmod>`` on each day (``dates.counted_days()``);
    #: ``None`` where they were not counted (a section of languages, a worker's shard).
    days: dict[str, int] | None = None


@dataclass
class SectionBuild:
    """A section of the published set, as its manifest records it, and what this build
    did to it."""

    section: str
    files: list[ManifestFile] = field(default_factory=list)
    #: Rows in its shards when each was rendered, and rows that gave no URL.
    rows: int = 0
    skipped: int = 0
    #: Shards in all, shards rendered by this build, and the seconds they took.
    shards: int = 0
    rendered: int = 0
    seconds: float = 0.0

    @property
    def urls(self) -> int:
        return sum(f.urls for f in self.files)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def gzip_size(self) -> int | None:
        sizes = [f.gzip_size for f in self.files if f.gzip_size is not None]
        return sum(sizes) if sizes else None


@dataclass
class BuildResult:
    sections: list[SectionBuild]
    index: ManifestFile | None = None
    manifest: Manifest | None = None
    #: Whether a new set was published; ``False`` when nothing had changed.
    published: bool = False
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: What was sent to IndexNow: ``None`` when it is off, or there was no earlier set
    #: to compare with.
    indexnow: Submission | None = None
    indexnow_skipped: str | None = None
    #: What the build changes URL by URL, when something reads it (``changes.py``).
    changes: SiteChanges | None = None


def section_builds(
    manifest: Manifest, rendered: list[RenderedShard], sections: list[str]
) -> list[SectionBuild]:
    """The summary of each section built, from the manifest and the shards rendered."""
    builds = []
    for section in sections:
        shards = manifest.section_shards(section)
        mine = [shard for shard in rendered if shard.job.section == section]
        builds.append(
            SectionBuild(
                section,
                files=[f for shard in shards for f in shard.files],
                rows=sum(shard.rows for shard in shards),
                skipped=sum(shard.skipped for shard in shards),
                shards=len(shards),
                rendered=len(mine),
                seconds=sum(shard.seconds for shard in mine),
            )
        )
    return builds
