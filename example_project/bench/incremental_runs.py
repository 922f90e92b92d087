"""The incremental-build cases, in the parent process: run the three steps of
bench/incremental_cases.py in order over one output directory, ``--runs`` times
(and once more under ``tracemalloc``), and tell from the file system what each
build rewrote.

A file is *rewritten* if it is new or its (inode, mtime in ns, size) changed,
*kept* if not, *removed* if it is gone. The output directory may be a symbolic
link to a directory of its own per build, so it is resolved before each look and
files are compared by their name in it. Names starting with a dot (the build's
lock file) are not the build's output and are left out.

bench/incremental_report.py reports the figures gathered here.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django_sitemapkit.names import is_index, without_gzip_suffix

from bench.incremental_cases import CHANGE, RESTORE
from bench.measuring import URL_TAG
from bench.specs import STEPS
from bench.table import run_by

MANIFEST_NAME = "sitemapkit-manifest.json"
# The steps, in the order they run.
INCREMENTAL_CASES = run_by(STEPS)
CHANGED = INCREMENTAL_CASES[-1]

FileState = tuple[int, int, int]  # inode, mtime in ns, size
Spawn = Callable[..., dict[str, Any]]


def snapshot(output: Path) -> dict[str, FileState]:
    """Every file under the directory ``output`` resolves to now, by its name in it."""
    root = os.path.realpath(output)
    found = {}
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue
            path = os.path.join(directory, name)
            stat = os.stat(path)
            found[os.path.relpath(path, root)] = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
    return found


def count_urls(output: Path, names: list[str]) -> int:
    root = os.path.realpath(output)
    return sum(
        Path(root, name).read_bytes().count(URL_TAG) for name in names if name.endswith(".xml")
    )


@dataclass
class StepFiles:
    """What one build left, against what the step before it left."""

    files: int
    rewritten: list[str]
    kept: int
    removed: list[str]
    urls: int
    xml_bytes: int
    gzip_bytes: int

    @property
    def pages(self) -> list[str]:
        """The page documents rewritten (a page and its .gz sibling are one)."""
        documents = {without_gzip_suffix(name) for name in self.rewritten}
        return sorted(name for name in documents if not is_index(name) and name != MANIFEST_NAME)

    @property
    def others(self) -> list[str]:
        """What else was rewritten: the index, the manifest."""
        return sorted(
            {
                "index" if is_index(name) else "manifest"
                for name in self.rewritten
                if is_index(name) or name == MANIFEST_NAME
            }
        )


def compare(before: dict[str, FileState], after: dict[str, FileState], urls: int) -> StepFiles:
    rewritten = sorted(name for name, state in after.items() if before.get(name) != state)
    sizes = {name: state[2] for name, state in after.items()}
    return StepFiles(
        files=len(after),
        rewritten=rewritten,
        kept=len(after) - len(rewritten),
        removed=sorted(set(before) - set(after)),
        urls=urls,
        xml_bytes=sum(size for name, size in sizes.items() if name.endswith(".xml")),
        gzip_bytes=sum(size for name, size in sizes.items() if name.endswith(".gz")),
    )


class IncrementalRuns:
    """The steps' child processes, by ``spawn`` (``Benchmark.spawn``), and their figures.

    ``expected_urls`` is the URLs each step's files must list (the table's rule).
    """

    def __init__(
        self,
        spawn: Spawn,
        log: Callable[[str], None],
        runs: int,
        expected_urls: Callable[[str], int],
    ) -> None:
        self.spawn = spawn
        self.log = log
        self.runs = runs
        self.expected_urls = expected_urls

    def run(self) -> dict[str, dict[str, Any]]:
        """The results of the three steps, in the shape of the other cases' (a ``time``,
        ``rss`` and ``tracemalloc`` measure each) plus each run's ``files``."""
        timed = [
            self.sequence("time", f"run {run} of {self.runs}") for run in range(1, self.runs + 1)
        ]
        traced = self.sequence("tracemalloc", "under tracemalloc")
        return {
            step: summarize([runs[index] for runs in timed], traced[index][0])
            for index, step in enumerate(INCREMENTAL_CASES)
        }

    def sequence(self, how: str, label: str) -> list[tuple[dict[str, Any], StepFiles]]:
        """The three steps in a new directory, and the table restored after them."""
        parent = Path(tempfile.mkdtemp(prefix="sitemapkit-incremental-"))
        # A directory of its own in ``parent``: the build may keep its builds beside it.
        output = parent / "sitemaps"
        output.mkdir()
        done: list[tuple[dict[str, Any], StepFiles]] = []
        before: dict[str, FileState] = {}
        changed = False
        try:
            for step in INCREMENTAL_CASES:
                if step == CHANGED:
                    self.log(f"incremental, {label}: changing the table...")
                    changed = True
                    self.spawn(f"--child={CHANGE}")
                self.log(f"{step}, {label}: {how}...")
                result = self.spawn(f"--child={step}", f"--measure={how}", f"--output-dir={output}")
                after = snapshot(output)
                files = compare(before, after, count_urls(output, list(after)))
                self.check(step, files)
                done.append((result, files))
                before = after
        finally:
            if changed:
                self.log(f"incremental, {label}: restoring the table...")
                self.spawn(f"--child={RESTORE}")
            shutil.rmtree(parent, ignore_errors=True)
        return done

    def check(self, step: str, files: StepFiles) -> None:
        """Fail loudly if a build listed other URLs than the table holds: its time would lie."""
        expected = self.expected_urls(step)
        if files.urls != expected:
            raise CommandError(
                f"{step} left {files.urls:,} URLs in its output where {expected:,} were expected."
            )


def summarize(
    runs: list[tuple[dict[str, Any], StepFiles]], traced: dict[str, Any]
) -> dict[str, Any]:
    """One step's figures over its runs: medians, and each run's files."""
    seconds = [result["seconds"] for result, _ in runs]
    first = runs[0][1]
    return {
        "time": {
            "seconds": seconds,
            "median": statistics.median(seconds),
            "min": min(seconds),
            "ttfb": [None] * len(seconds),
            "ttfb_median": None,
            "bytes_per_run": [files.xml_bytes for _, files in runs],
            "warmup": {
                "urls": first.urls,
                "bytes": first.xml_bytes,
                "files": first.files,
                "gzip_bytes": first.gzip_bytes,
                "digest": None,
                "locs_digest": None,
            },
            "steps": {},
        },
        "rss": {
            key: statistics.median(result[key] for result, _ in runs)
            for key in ("baseline", "peak_before", "peak", "extra", "children_peak")
        },
        "tracemalloc": traced,
        "files": [
            {**asdict(files), "pages": files.pages, "others": files.others} for _, files in runs
        ],
    }
