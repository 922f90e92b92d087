"""A published manifest read back: checked whole against the schema (``schema.py``),
or set aside with one line in the log, every file then rendered afresh.

Its bytes are read only from a regular file of at most ``manifest.MOST_BYTES``
(``destinations.py``); here each shard, each file, the sections and the two
moments are checked, and how they fit together: each shard's section is
recorded, a section's ranges start where a key of one length says, and no
name is listed twice.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import stat
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django_sitemapkit.build.manifest import (
    FORMAT,
    MOST_BYTES,
    Manifest,
    ManifestFile,
    Shard,
    Unreadable,
)
from django_sitemapkit.build.schema import (
    MOST_ROWS,
    Invalid,
    fields,
    items,
    key,
    manifest_file,
    page_of,
    refuse,
    shown,
    stats,
    text,
    whole,
)
from django_sitemapkit.conf import MAX_URLS
from django_sitemapkit.names import INDEX_FILENAME, MANIFEST_FILENAME, SECTION_NAME
from django_sitemapkit.sources.keyset import fits
from django_sitemapkit.sources.plan import Plan
from django_sitemapkit.views.stores import NOT_A_FILE, OPEN_FLAGS

logger = logging.getLogger("django_sitemapkit")
FINGERPRINT = re.compile(r"[0-9a-f]{32}")
SHARD_FIELDS = ("files", "low", "rows", "section", "skipped", "stats")
#: The formats read: 2, whose files have no date in the index of their own, and this one.
READ_FORMATS = (2, FORMAT)
MANIFEST_FIELDS = (
    *("built", "fingerprint", "format", "full_check", "index", "sections", "shards", "site"),
)


def shard(value: Any, where: str, dated: bool) -> Shard:
    data = fields(value, where, SHARD_FIELDS)
    section = text(data["section"], f"{where}.section", "a section's name", SECTION_NAME)
    named, expected = page_of(section), f"the name of a page file of section {section!r}"
    files = items(data["files"], f"{where}.files", MAX_URLS)
    return Shard(
        section=section,
        low=key(data["low"], f"{where}.low"),
        stats=stats(data["stats"], f"{where}.stats"),
        files=tuple(
            listed(manifest_file(file, f"{where}.files[{number}]", named, expected, dated), dated)
            for number, file in enumerate(files)
        ),
        rows=whole(data["rows"], f"{where}.rows"),
        skipped=whole(data["skipped"], f"{where}.skipped"),
    )


def moment(value: Any, where: str) -> dt.datetime:
    """A moment as ``datetime.isoformat()`` writes an aware one."""
    expected = "a date and time with its UTC offset, as a build writes it"
    try:
        parsed = dt.datetime.fromisoformat(text(value, where, expected))
    except ValueError:
        raise refuse(where, value, expected) from None
    if parsed.tzinfo is None or parsed.isoformat() != value:
        raise refuse(where, value, expected)
    return parsed


def listed(file: ManifestFile, dated: bool) -> ManifestFile:
    """``file``, with the date the index listed it with: a manifest of format 2 has
    none, and its build listed each file with its newest ``lastmod``."""
    return file if dated else replace(file, lastmod=file.newest)


def manifest(value: Any) -> Manifest:
    if isinstance(value, dict) and value.get("format") not in READ_FORMATS:
        raise Invalid(
            f"format is {shown(value.get('format'))}: this version reads "
            f"{' and '.join(map(str, READ_FORMATS))}"
        )
    data = fields(value, "the manifest", MANIFEST_FIELDS)
    dated = data["format"] == FORMAT
    sections = data["sections"]
    if not isinstance(sections, dict):
        raise refuse("sections", sections, "an object")
    for section, print_ in sections.items():
        text(section, "a key of sections", "a section's name", SECTION_NAME)
        text(print_, f"sections[{section!r}]", "a fingerprint", FINGERPRINT)
    found = items(data["shards"], "shards", MOST_ROWS)
    shards = tuple(shard(item, f"shards[{number}]", dated) for number, item in enumerate(found))
    consistent(shards, sections)
    built, full_check = moment(data["built"], "built"), moment(data["full_check"], "full_check")
    if full_check > built:
        raise refuse("full_check", data["full_check"], f"a moment before built ({data['built']})")
    return Manifest(
        site=text(data["site"], "site", "a base URL"),
        fingerprint=text(data["fingerprint"], "fingerprint", "a fingerprint", FINGERPRINT),
        sections=dict(sections),
        shards=shards,
        index=manifest_file(
            data["index"], "index", lambda name: name == INDEX_FILENAME, repr(INDEX_FILENAME), dated
        ),
        built=data["built"],
        full_check=data["full_check"],
    )


def consistent(shards: tuple[Shard, ...], sections: dict[str, str]) -> None:
    """Each shard's section is recorded; a section's first range starts at its start,
    and the others at keys of one length; no file is named twice."""
    lengths: dict[str, int | None] = {}
    names: set[str] = set()
    for number, item in enumerate(shards):
        where = f"shards[{number}]"
        if item.section not in sections:
            raise refuse(f"{where}.section", item.section, "a section of sections")
        length = None if item.low is None else len(item.low)
        if item.section not in lengths:
            if length is not None:
                raise refuse(f"{where}.low", item.low, "None: a section's first shard")
        elif length is None or lengths[item.section] not in (None, length):
            raise refuse(f"{where}.low", item.low, "a key as long as its section's others")
        lengths[item.section] = length
        for file in item.files:
            if file.name in names:
                raise refuse(f"{where}.files", file.name, "a name no other file has")
            names.add(file.name)


def read_manifest(
    read: Callable[[], bytes | None], label: str, *, quiet: bool = False
) -> Manifest | None:
    """The manifest ``read()`` gives, or ``None`` when there is none or it cannot be
    read: the build then renders every file afresh, which is always correct, only
    slower, and an unchanged file still keeps its bytes. ``quiet`` logs nothing, for a
    reader that builds nothing from it."""
    try:
        content = read()
        return None if content is None else manifest(json.loads(content))
    except (Unreadable, ValueError, RecursionError) as exc:
        # ValueError: JSON's errors, and Invalid; RecursionError: arrays nested deeper
        # than the parser recurses.
        if not quiet:
            set_aside(label, f"{type(exc).__name__}: {exc}")
        return None


def set_aside(label: str, reason: str) -> None:
    logger.warning(
        "%s in %s cannot be read (%s): every file is rendered afresh, and the build writes a "
        "new one.",
        MANIFEST_FILENAME,
        label,
        reason,
    )


def misfit(old: Manifest, plans: list[Plan], sections: dict[str, str]) -> str | None:
    """Where a recorded shard starts at no key of its section as planned now, if one
    does (the seeks of its range would fail, or find no row); ``None`` if none does."""
    for plan in plans:
        pager = plan.queryset
        recorded = old.sections.get(plan.section)
        if pager is None or pager.key is None or recorded != sections[plan.section]:
            continue
        for number, shard in enumerate(old.shards):
            low = shard.low
            if (
                shard.section == plan.section
                and low is not None
                and not fits(pager.ordered.model, pager.key, low)
            ):
                return f"Invalid: shards[{number}].low is {low!r}, no key of {plan.section!r}"
    return None


def read_regular(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of the regular file ``path`` (``None`` if there is none), read only if
    it is one, not through a link, and of at most ``manifest.MOST_BYTES``: opened as
    the views open a built file (a link could point anywhere, /dev/zero say; a FIFO
    would hang the build, which holds its lock meanwhile)."""
    try:
        descriptor = os.open(path, OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno in NOT_A_FILE:
            raise Unreadable("a symbolic link or a socket, not a regular file") from exc
        raise
    with os.fdopen(descriptor, "rb") as opened:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable("a FIFO, a device or a directory, not a regular file")
        content = opened.read(MOST_BYTES + 1)
    if len(content) > MOST_BYTES:
        raise Unreadable(f"more than {MOST_BYTES:,} bytes")
    return content
