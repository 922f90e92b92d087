"""What a local build leaves on disk, read as a web server and a test see it.

The output directory is a symbolic link to the current build, in a
directory of builds beside it (``.<name>.builds``, which also holds the lock);
a build that died may have left a ``.partial`` directory there, or a link
beside the output that never took its place.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from django_sitemapkit.names import INDEX_FILENAME, MANIFEST_FILENAME


def snapshot(directory: Path, *, built: bool = True) -> dict[str, bytes]:
    """Every file a web server could serve (dot files are not), read through the link.

    Without ``built``, the manifest's times (when the set was built, and when
    every shard was last rendered) are left out: for comparing what two builds
    wrote, not when."""
    files = {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.name[0] != "."}
    return files if built else without_times(files)


def without_times(files: dict[str, bytes]) -> dict[str, bytes]:
    if MANIFEST_FILENAME not in files:
        return files
    recorded = json.loads(files[MANIFEST_FILENAME])
    recorded["built"] = recorded["full_check"] = None
    return {**files, MANIFEST_FILENAME: json.dumps(recorded, sort_keys=True).encode()}


def undated(files: dict[str, bytes]) -> dict[str, bytes]:
    """``files`` without the index's dates: each says when its file last changed, so it
    depends on the set's history and not on its rows alone (build/dates.py). The
    index loses its ``<lastmod>`` elements and its ``.gz``, the manifest each file's
    ``lastmod`` and the index's record (its size and hashes)."""
    found = {name: body for name, body in files.items() if name != INDEX_FILENAME + ".gz"}
    if INDEX_FILENAME in found:
        found[INDEX_FILENAME] = re.sub(rb"<lastmod>[^<]*</lastmod>", b"", found[INDEX_FILENAME])
    if MANIFEST_FILENAME in found:
        recorded = json.loads(found[MANIFEST_FILENAME])
        for record in [f for shard in recorded["shards"] for f in shard["files"]]:
            record.pop("lastmod", None)
        recorded.pop("index")
        found[MANIFEST_FILENAME] = json.dumps(recorded, sort_keys=True).encode()
    return found


def visible(directory: Path) -> list[str]:
    """The names in ``directory`` but the dot-named: the outputs (links) in a root."""
    return sorted(name for name in os.listdir(directory) if name[0] != ".")


def builds(output: Path) -> Path:
    return output.parent / f".{output.name}.builds"


def lock_file(output: Path) -> Path:
    return builds(output) / ".lock"


def leftovers(output: Path) -> list[str]:
    """What a build that failed or died may leave: its partial directory, its link."""
    partial = [p.name for p in builds(output).iterdir() if p.name.endswith(".partial")]
    links = [p.name for p in output.parent.glob(f".{output.name}.link-*")]
    return sorted(partial + links)


def current_build(output: Path) -> str:
    """The build the output link points to, which must be in the directory of builds."""
    target = os.readlink(output)
    assert os.path.dirname(target) == builds(output).name
    return os.path.basename(target)


def shard_files(output: Path) -> list[tuple[str, list[str]]]:
    """Each shard of the manifest: its section and the names of its files."""
    manifest = json.loads((output / MANIFEST_FILENAME).read_bytes())
    return [(shard["section"], [f["name"] for f in shard["files"]]) for shard in manifest["shards"]]
