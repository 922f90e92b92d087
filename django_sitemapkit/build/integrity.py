"""Whether a published file is still the one its manifest records, before a build keeps
it.

A kept file is never written again, so one damaged where it is published (cut
short, a byte changed, replaced by a symbolic link) would be served until its
rows change. Every build looks at each file it would keep, without reading
it (``Destination.stored()``): in a directory, that it is a regular file (not a
link), of the recorded size, not modified since its set was published; in a
storage, that it exists, of the recorded size (on S3, from the HEAD request
that also says it was not uploaded after the set's manifest). A *thorough*
look, in a build that renders every shard (``--full``, or
``SITEMAPKIT_FULL_BUILD_EVERY``) or validates (``--validate``), also reads it
back: its SHA-256 against the recorded one, and a ``.gz`` decompressed to it.

A file that fails is not kept: its shard is rendered again (``planning.py``),
or the copy the build has just rendered is published in its place
(``sets.place()``), with one log line naming it and what was wrong.
"""

from __future__ import annotations

import hashlib
import logging
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import IO

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.manifest import Manifest, ManifestFile, Shard
from django_sitemapkit.encoding.compression import GZIP_WBITS
from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.declaration import BaseSource

logger = logging.getLogger("django_sitemapkit")
# RFC 1952 section 2.3.1: every gzip member starts with ID1 ID2.
GZIP_MAGIC = b"\x1f\x8b"
BLOCK_SIZE = 1 << 20
#: Files a thorough build reads back at once, where its destination allows.
READERS = 8


class Inspection:
    """The published files a build looks at, each once, and what it found."""

    def __init__(self, destination: Destination, thorough: bool) -> None:
        self.destination = destination
        self.thorough = thorough
        self.verdicts: dict[str, bool] = {}

    def shard_intact(self, shard: Shard) -> bool:
        return all(self.intact(file) for file in shard.files)

    def intact(self, file: ManifestFile) -> bool:
        """Whether ``file`` and its ``.gz`` are as the manifest records them; one that is
        not is logged."""
        return all(self.name_intact(file, name) for name in file.names())

    def name_intact(self, file: ManifestFile, name: str) -> bool:
        if name not in self.verdicts:
            problem = self.problem(file, name)
            if problem is None and self.thorough:
                problem = self.content_problem(file, name)
            self.judge(name, problem)
        return self.verdicts[name]

    def look_ahead(self, files: list[ManifestFile]) -> None:
        """Look at ``files`` now, a thorough build reading them back several at once where
        the destination allows: on S3 a download is mostly waiting for the network."""
        names = [(file, name) for file in files for name in file.names()]
        problems = {name: self.problem(file, name) for file, name in names}
        if self.thorough:
            readable = [(file, name) for file, name in names if problems[name] is None]
            threads = READERS if self.destination.parallel_reads else 1
            with ThreadPoolExecutor(threads, thread_name_prefix="sitemapkit-check") as pool:
                found = pool.map(lambda pair: self.content_problem(*pair), readable)
                problems.update(zip([name for _, name in readable], found, strict=True))
        for name, problem in problems.items():
            self.judge(name, problem)

    def judge(self, name: str, problem: str | None) -> None:
        if problem is not None:
            logger.warning(
                "%s in %s %s: it is not kept, and the build writes it afresh.",
                name,
                self.destination.label,
                problem,
            )
        self.verdicts[name] = problem is None

    def problem(self, file: ManifestFile, name: str) -> str | None:
        """What is wrong with the published ``name``, one of ``file``'s names, as far as
        its destination can tell without reading it."""
        recorded = file.gzip_size if name.endswith(GZIP_SUFFIX) else file.size
        stored = self.destination.stored(name)
        if stored is None:
            return "is missing"
        if stored.other is not None:
            return f"is {stored.other}, not a regular file"
        if stored.size is not None and stored.size != recorded:
            return f"has {stored.size:,} bytes where the manifest records {recorded:,}"
        if stored.changed:
            return "was modified after its set was published"
        return None

    def content_problem(self, file: ManifestFile, name: str) -> str | None:
        opened = self.destination.open_published(name)
        if opened is None:
            return "cannot be opened as a file"
        with opened as stream:
            if not name.endswith(GZIP_SUFFIX):
                if digest(blocks(stream, file.size), file.size) == file.sha256:
                    return None
                return "does not hold the bytes the manifest records (SHA-256)"
            if decompressed_digest(stream, file) == file.sha256:
                return None
            return "does not decompress to the bytes the manifest records (SHA-256)"


def decompressed_digest(stream: IO[bytes], file: ManifestFile) -> str | None:
    """The SHA-256 of what the ``.gz`` in ``stream`` decompresses to, if it is one whole
    gzip member of ``file.size`` bytes or fewer."""
    head = stream.read(len(GZIP_MAGIC))
    if head != GZIP_MAGIC:
        # django-storages' S3Storage with its gzip option decompresses an
        # object stored with Content-Encoding: gzip as it reads it, so the
        # .gz reads back as the .xml itself.
        return digest(chain([head], blocks(stream, file.size - len(head))), file.size)
    assert file.gzip_size is not None
    return inflated_digest(chain([head], blocks(stream, file.gzip_size - len(head))), file.size)


def blocks(stream: IO[bytes], limit: int) -> Iterator[bytes]:
    """At most ``limit`` bytes of ``stream``, and one more if it has more: a file is
    never read further than its recorded size tells it apart."""
    left = limit + 1
    while left > 0:
        block = stream.read(min(BLOCK_SIZE, left))
        if not block:
            return
        left -= len(block)
        yield block


def inflated_digest(compressed: Iterable[bytes], size: int) -> str | None:
    """The SHA-256 of what ``compressed`` decompresses to, if it is one whole gzip
    member (its CRC-32 and length right, RFC 1952 section 2.3.1) of ``size`` bytes."""
    inflater = zlib.decompressobj(GZIP_WBITS)
    hashed = hashlib.sha256()
    produced = 0
    try:
        for block in compressed:
            pending = block
            while pending:
                if inflater.eof:
                    return None  # bytes after the member
                # max_length bounds what one call gives: a small .gz that would
                # decompress to gigabytes is read no further than size + 1.
                output = inflater.decompress(pending, size + 1 - produced)
                hashed.update(output)
                produced += len(output)
                if produced > size:
                    return None
                pending = inflater.unconsumed_tail
    except zlib.error:
        return None  # corrupt data, or a wrong CRC-32 or length in the trailer
    if not inflater.eof or inflater.unused_data or produced != size:
        return None  # cut short, or followed by more bytes
    return hashed.hexdigest()


def digest(chunks: Iterable[bytes], size: int) -> str | None:
    """The SHA-256 of ``chunks`` if they are ``size`` bytes long in all."""
    hashed = hashlib.sha256()
    length = 0
    for chunk in chunks:
        hashed.update(chunk)
        length += len(chunk)
    return hashed.hexdigest() if length == size else None


def damaged_sections(
    recorded: Manifest, sources: list[BaseSource], site: SitemapSite, inspection: Inspection
) -> list[BaseSource]:
    """The sources of the sections a ``--section`` build would leave alone, but whose
    published files are damaged: planned too, so that those files are rendered again
    (the rest of the section is kept, as its rows are as they were)."""
    chosen = {type(source).name for source in sources}
    damaged = []
    for section in dict.fromkeys(shard.section for shard in recorded.shards):
        shards = recorded.section_shards(section)
        if section not in chosen and not all(map(inspection.shard_intact, shards)):
            source = registry.get(section, site)
            if source is not None:
                damaged.append(source)
    return damaged
