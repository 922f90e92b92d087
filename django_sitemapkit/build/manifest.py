"""The manifest: the one description of a published set of files.

Written with the files (``sitemapkit-manifest.json``), it records the build's
settings fingerprint and, per shard (a section's key range), where the range
starts, what the database held in it when it was rendered, and each file it
rendered to: name, URL count, newest lastmod, sizes and content hash. The next
build reads it to know what changed, the index is written from it, and
``--dry-run`` and the summary compare against it.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import importlib.metadata
import json
import logging
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from django_sitemapkit.names import GZIP_SUFFIX, INDEX_FILENAME, MANIFEST_FILENAME, PAGE_FILENAME
from django_sitemapkit.sources.ranges import Key, RangeStats

FORMAT = 1
logger = logging.getLogger("django_sitemapkit")
# A key or a lastmod is any value a database column gives: JSON has no dates,
# decimals or UUIDs, so those are written as {"type": "text"} and read back.
TAGGED: dict[str, Any] = {
    "datetime": dt.datetime.fromisoformat,
    "date": dt.date.fromisoformat,
    "time": dt.time.fromisoformat,
    "decimal": decimal.Decimal,
    "uuid": uuid.UUID,
}


def encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    for tag, kind in (("datetime", dt.datetime), ("date", dt.date), ("time", dt.time)):
        if isinstance(value, kind):
            return {tag: value.isoformat()}
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value)}
    raise TypeError(f"a key or lastmod of type {type(value).__name__} cannot be recorded")


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        ((tag, text),) = value.items()
        return TAGGED[tag](text)
    return value


def encode_stats(stats: RangeStats) -> dict[str, Any]:
    return {"rows": stats.rows, "lastmod": encode(stats.lastmod), "key_sum": stats.key_sum}


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

    def names(self) -> list[str]:
        """The file and its gzip sibling, sibling first (the order they are published in)."""
        return [self.name + GZIP_SUFFIX, self.name] if self.gzip_size is not None else [self.name]


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


def page_name(name: str, section: str) -> None:
    """Raise ``ValueError`` unless ``name`` is a page file of ``section``: a build links,
    lists and deletes the names its manifest gives, so one planted in the directory or
    storage must not name another file ("../x", "media/photo.jpg")."""
    match = PAGE_FILENAME.match(name)
    if match is None or match["section"] != section:
        raise ValueError(f"{name!r} is not the name of a page file of section {section!r}")


def read_manifest(content: bytes | None, label: str) -> Manifest | None:
    """The manifest in ``content``, or ``None`` when there is none or it cannot be read:
    the build then renders every file afresh, which is always correct, only slower,
    and an unchanged file still keeps its bytes."""
    if content is None:
        return None
    try:
        data = json.loads(content)
        if data.get("format") != FORMAT:
            return None
        shards = tuple(
            Shard(
                section=item["section"],
                low=None if item["low"] is None else tuple(decode(v) for v in item["low"]),
                stats=item["stats"],
                files=tuple(ManifestFile(**f) for f in item["files"]),
                rows=item["rows"],
                skipped=item["skipped"],
            )
            for item in data["shards"]
        )
        for shard in shards:
            for file in shard.files:
                page_name(file.name, shard.section)
        if data["index"]["name"] != INDEX_FILENAME:
            raise ValueError(f"the index is named {data['index']['name']!r}")
        return Manifest(
            site=data["site"],
            fingerprint=data["fingerprint"],
            sections=dict(data["sections"]),
            shards=shards,
            index=ManifestFile(**data["index"]),
            built=data["built"],
            full_check=data["full_check"],
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        logger.warning(
            "%s in %s cannot be read (%s: %s): every file is rendered afresh, and the "
            "build writes a new one.",
            MANIFEST_FILENAME,
            label,
            type(exc).__name__,
            exc,
        )
        return None
