"""The manifest: the one description of a published set of files.

Written with the files (``sitemapkit-manifest.json``), it records the build's
settings fingerprint and, per shard (a section's key range), where the range
starts, what the database held in it when it was rendered, and each file it
rendered to: name, URL count, newest lastmod, sizes and content hash. The next
build reads it (through ``schema.py``, which checks every value of it) to know
what changed, the index is written from it, and ``--dry-run`` and the summary
compare against it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.sources.json_values import encode
from django_sitemapkit.sources.ranges import Key, RangeStats

#: 2: each file's record has the SHA-256 of its gzip sibling too. 3: and its date in
#: the index (``dates.py``); a manifest of format 2 is still read (``reading.py``).
FORMAT = 3
#: The largest manifest a build reads: a set at the index's ceiling of 50,000 files
#: is about 23 MB of it (450 bytes a shard), with room for long keys.
MOST_BYTES = 64 * 2**20


def encode_stats(stats: RangeStats) -> dict[str, Any]:
    return {"rows": stats.rows, "lastmod": encode(stats.lastmod), "key_sum": stats.key_sum}


class Unreadable(Exception):
    """The manifest is not a file a build reads: a link, a FIFO, a device, or larger
    than ``MOST_BYTES``."""


@dataclass(frozen=True)
class ManifestFile:
    """One file of the set: a page, or the index."""

    name: str
    urls: int
    #: The newest ``lastmod`` in the file as written, for its index entry.
    newest: str | None
    size: int
    gzip_size: int | None
    sha256: str
    #: The SHA-256 of the gzip sibling, if there is one.
    gzip_sha256: str | None = None
    #: The file's ``<lastmod>`` in the index: when its bytes last changed (``dates.py``).
    #: ``None`` in a worker's result: the set it joins decides it.
    lastmod: str | None = None

    def names(self) -> list[str]:
        """The file and its gzip sibling, sibling first (the order they are published in)."""
        return [self.name + GZIP_SUFFIX, self.name] if self.gzip_size is not None else [self.name]

    def rendered(self) -> dict[str, Any]:
        """The record as a renderer reports it (a worker's result): all but ``lastmod``."""
        record = asdict(self)
        del record["lastmod"]
        return record

    def digests(self) -> list[tuple[str, int, str]]:
        """Each name of ``names()`` with the size and SHA-256 of its bytes."""
        plain = (self.name, self.size, self.sha256)
        if self.gzip_size is None:
            return [plain]
        return [(self.name + GZIP_SUFFIX, self.gzip_size, self.gzip_sha256 or ""), plain]


@dataclass(frozen=True)
class Shard:
    """A section's rows from ``low`` (``None``: the section's start) up to the next shard's
    ``low``, and the files they were rendered to."""

    section: str
    low: Key | None
    #: ``encode_stats()`` of the range when it was rendered; ``None`` for a section
    #: read without a key (static pages, contrib classes), re-rendered every build.
    stats: dict[str, Any] | None
    files: tuple[ManifestFile, ...]
    rows: int = 0
    skipped: int = 0


@dataclass(frozen=True)
class Manifest:
    site: str
    #: ``fingerprint()`` of the settings every file depends on; per section, its own.
    fingerprint: str
    sections: dict[str, str]
    shards: tuple[Shard, ...]
    index: ManifestFile
    #: When the set was published, and when every shard was last rendered.
    built: str
    full_check: str
    format: int = FORMAT

    def section_shards(self, section: str) -> list[Shard]:
        return [shard for shard in self.shards if shard.section == section]

    def files(self) -> Iterator[ManifestFile]:
        for shard in self.shards:
            yield from shard.files
        yield self.index

    def names(self) -> set[str]:
        return {name for file in self.files() for name in file.names()}

    def full_check_at(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.full_check)

    def to_json(self) -> bytes:
        data = asdict(self)
        data["shards"] = [
            {**asdict(shard), "low": None if shard.low is None else [encode(v) for v in shard.low]}
            for shard in self.shards
        ]
        # Sorted keys and no spaces: the same set gives the same bytes.
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def package_version() -> str:
    try:
        return importlib.metadata.version("django-sitemapkit")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout, not installed
        return "unknown"


def fingerprint(values: Any) -> str:
    text = json.dumps(values, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
