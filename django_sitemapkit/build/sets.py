"""The new set: rendered files named, unchanged files kept, the index written, and
what changed against the published set.

A rendered shard's files take the names its files had, in order, and any
more take numbers no file of the section had. A file whose bytes are those of
the published file of the same name is not written again: the published one
is kept, with its modification time (``Destination.keep()``), if it is still
what the manifest records (``integrity.py``), and with its date in the index
(``dates.py``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace

from django_sitemapkit.build.dates import dated
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.integrity import Inspection
from django_sitemapkit.build.manifest import Manifest, ManifestFile, Shard
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.order import publish_order
from django_sitemapkit.build.planning import PlannedShard
from django_sitemapkit.build.render import write_document
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.documents import encoded, index_locs, index_runs, open_document
from django_sitemapkit.encoding.encoder import SITEMAPINDEX, Encoder, Entry
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import INDEX_FILENAME, page_filename, page_number
from django_sitemapkit.sites.configured import SitemapSite


@dataclass
class NewSet:
    """The files of the new set, sorted by what the build does with them."""

    #: What the build found of the published files: only intact ones are kept.
    inspection: Inspection
    #: Whether the index links the pages' ``.gz`` (``order.publish_order()``).
    gzip_links: bool = False
    #: When the set is put together, after its shards are rendered: a changed file's
    #: date in the index.
    moment: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))
    shards: list[Shard] = field(default_factory=list)
    #: Names staged to publish (pages and their siblings), and names kept as published.
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


class Namer:
    """Names for a section's files: the names they had, then numbers none had."""

    def __init__(self, section: str, first_free: int) -> None:
        self.section = section
        self.next = first_free

    def skip(self, names: list[str]) -> None:
        """Take no number of ``names`` (those the plan gave shards to render)."""
        numbers = [page_number(name) or 0 for name in names]
        self.next = max(self.next, max(numbers, default=0) + 1)

    def name(self, names: list[str], position: int) -> str:
        if position < len(names):
            return names[position]
        self.next += 1
        return page_filename(self.section, self.next - 1)


def add_section(
    new: NewSet,
    planned: list[PlannedShard],
    rendered: dict[int, RenderedShard],
    namer: Namer,
    destination: Destination,
    published: dict[str, ManifestFile],
) -> None:
    """Add a section's shards to ``new``; ``rendered`` maps a job's number to what it
    gave, and each shard to render has its job."""
    namer.skip([name for shard in planned for name in shard.given])
    for shard in planned:
        if shard.kept is not None:
            for file in shard.kept.files:
                keep(new, file, destination)
            kept = shard.kept
            new.shards.append(
                Shard(shard.section, shard.low, shard.stats, kept.files, kept.rows, kept.skipped)
            )
            continue
        assert shard.job is not None
        result = rendered[shard.job.number]
        files = []
        for number, staged in enumerate(result.files):
            name = namer.name(shard.given, number)
            file = replace(staged, name=name)
            rename_staged(destination, staged, name)
            previous = published.get(name)
            place(new, file, destination, previous)
            files.append(dated(file, previous, same_bytes(file, previous), new.moment))
        stats = shard.stats if result.stats is None else result.stats
        new.shards.append(
            Shard(shard.section, shard.low, stats, tuple(files), result.rows, result.skipped)
        )


def keep_shard(new: NewSet, shard: Shard, destination: Destination) -> None:
    """A shard of a section this build leaves alone (``--section``)."""
    for file in shard.files:
        keep(new, file, destination)
    new.shards.append(shard)


def rename_staged(destination: Destination, staged: ManifestFile, name: str) -> None:
    final = ManifestFile(name, 0, None, 0, staged.gzip_size, "")
    for before, after in zip(staged.names(), final.names(), strict=True):
        destination.rename_staged(before, after)


def same_bytes(file: ManifestFile, published: ManifestFile | None) -> bool:
    """Whether the manifest records ``published`` with the bytes of ``file``."""
    return published is not None and (published.sha256, published.gzip_size is None) == (
        file.sha256,
        file.gzip_size is None,
    )


def same_files(file: ManifestFile, published: ManifestFile | None) -> bool:
    """``same_bytes()``, and the same ``.gz`` bytes too: the same document compressed at
    another ``SITEMAPKIT_GZIP_LEVEL`` is written again, though its date stays."""
    return same_bytes(file, published) and (
        published is not None and published.gzip_sha256 == file.gzip_sha256
    )


def place(
    new: NewSet, file: ManifestFile, destination: Destination, published: ManifestFile | None
) -> None:
    """Publish ``file`` as staged, or, when the published file has its very bytes (its
    ``.gz``'s too), keep that one."""
    if published is not None and same_files(file, published) and new.inspection.intact(published):
        for name in file.names():
            destination.drop_staged(name)
        keep(new, file, destination)
    else:
        new.written += publish_order(file, new.gzip_links)


def keep(new: NewSet, file: ManifestFile, destination: Destination) -> None:
    for name in file.names():
        destination.keep(name)
        new.kept.append(name)


def index_entries(site: SitemapSite, shards: list[Shard], options: BuildOptions) -> list[Entry]:
    files = [f for shard in shards for f in shard.files]
    locs = index_locs(site.base_url, (f.name for f in files), options.gzip_links)
    return [Entry(loc, f.lastmod) for loc, f in zip(locs, files, strict=True)]


def render_index(
    destination: Destination, entries: list[Entry], options: BuildOptions
) -> ManifestFile:
    if len(entries) > MAX_URLS:
        raise BuildError(
            f"The build has {len(entries):,} files, more than the {MAX_URLS:,} one index may "
            "list; raise SITEMAPKIT_LIMIT or the sources' limit so fewer files are needed."
        )

    def on_cut(encoder: Encoder) -> None:
        raise BuildError(
            f"The index of {len(entries):,} files passes SITEMAPKIT_MAX_BYTES "
            f"({conf.MAX_BYTES:,} bytes); raise the setting or the sources' limit."
        )

    document = open_document(
        index_runs(entries), SITEMAPINDEX, max_urls=MAX_URLS, max_bytes=conf.MAX_BYTES
    )
    assert document is not None, "a build with no URL publishes nothing"
    size, sha256, gzip_size, gzip_sha256 = write_document(
        destination.staging, INDEX_FILENAME, encoded(document, on_cut), options.gzip
    )
    encoder = document.encoder
    return ManifestFile(
        INDEX_FILENAME, encoder.count, encoder.newest, size, gzip_size, sha256, gzip_sha256
    )


def unchanged(new: Manifest, old: Manifest | None) -> bool:
    """Whether ``new`` records exactly what ``old`` does, but for when it was built."""
    if old is None:
        return False
    same = Manifest(
        old.site, new.fingerprint, new.sections, new.shards, new.index, old.built, new.full_check
    )
    return same.to_json() == old.to_json()
