"""The processes of the kill test (tests/test_build_kill.py): the runner that
changes the rows and forks the builds (tests/kill_runner.py), the points a
build is killed at, and what a killed build leaves."""

from __future__ import annotations

import datetime as dt
import gzip
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from kill_reader import lastmods_and_locs

from django_sitemapkit.names import INDEX_FILENAME, MANIFEST_FILENAME

SECONDS = 120  # for any one process
# How long to sleep between two looks at a build, unless it is to be killed as
# it publishes (then there is no sleep at all).
POLL_SECONDS = 0.001
LOCK_NAME = ".lock"

#: Where a build is killed: the kill test takes them in turn.
KILL_POINTS = (
    "a random delay from its start",
    "a random delay from its lock",
    "a random delay from its start",
    "a random delay from its lock",
    "its manifest",
    "a random delay from its start",
    "a random delay from its lock",
    "a random delay from its start",
    "a random delay from its lock",
    "its rename",
)


def python(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


class Runner:
    """tests/kill_runner.py, running."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            python("kill_runner"), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, command: str) -> str:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"kill_runner failed on {command!r}"
        return answer.strip()

    def close(self) -> None:
        self.process.communicate(timeout=SECONDS)
        assert self.process.returncode == 0


@dataclass
class Build:
    """One ``build_sitemaps`` process, forked by the runner."""

    runner: Runner
    pid: int
    errors: Path
    returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            answer = self.runner.ask(f"poll {self.pid}")
            self.returncode = None if answer == "running" else int(answer)
        return self.returncode

    def kill(self) -> None:
        # The pid is the build's until the runner has waited for it, which it
        # does only when asked: a build that ended meanwhile is a zombie, and
        # the signal is lost on it. Once waited for, the pid may be another
        # process's.
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> tuple[int, str]:
        """The exit status, and what the build wrote to its standard error."""
        returncode = int(self.runner.ask(f"wait {self.pid}"))
        return returncode, self.errors.read_text()


@dataclass
class Builds:
    """``build_sitemaps --output <output>``, each in a process of its own."""

    output: Path
    runner: Runner
    #: How long each build that ran to its end took, from its start and from its lock.
    seconds: list[float] = field(default_factory=list)
    locked_seconds: list[float] = field(default_factory=list)
    started: int = 0

    @property
    def directory(self) -> Path:
        return self.output.parent / f".{self.output.name}.builds"

    def start(self) -> Build:
        self.started += 1
        errors = self.output.parent / f"build-{self.started}.stderr"
        pid = self.runner.ask(f"build {self.output} {errors}")
        return Build(self.runner, int(pid), errors)

    def run(self) -> tuple[int, str]:
        """One build to its end, timed: its exit status and standard error."""
        started = time.monotonic()
        build = self.start()
        staging = self.wait_for_staging(build, POLL_SECONDS)
        locked = time.monotonic()
        while build.poll() is None:
            time.sleep(POLL_SECONDS)
        ended = time.monotonic()
        self.seconds.append(ended - started)
        if staging is not None:
            self.locked_seconds.append(ended - locked)
        return build.wait()

    def wait_for_staging(self, build: Build, pause: float) -> Path | None:
        """The staging directory of ``build``, once it holds the lock; ``None`` if it
        ends first. The build before removed any other's."""
        deadline = time.monotonic() + SECONDS
        while build.poll() is None and time.monotonic() < deadline:
            staging = next(self.directory.glob("*.partial"), None)
            if staging is not None:
                return staging
            time.sleep(pause)
        return None

    def kill(self, build: Build, point: str, generator: random.Random) -> None:
        """SIGKILL ``build`` at ``point``, one of ``KILL_POINTS``."""
        if point == "a random delay from its start":
            time.sleep(generator.uniform(0, mean(self.seconds)))
        elif point == "a random delay from its lock":
            if self.wait_for_staging(build, POLL_SECONDS) is not None:
                time.sleep(generator.uniform(0, mean(self.locked_seconds)))
        else:
            self.wait_for_publish(build, renamed=point == "its rename")
        build.kill()

    def wait_for_publish(self, build: Build, renamed: bool) -> None:
        """Return as ``build`` publishes: once its staging directory holds the manifest
        (written first in ``publish()``), or once it is renamed (the link is next)."""
        staging = self.wait_for_staging(build, 0)
        deadline = time.monotonic() + SECONDS
        while staging is not None and time.monotonic() < deadline:
            if not staging.exists() or (not renamed and (staging / MANIFEST_FILENAME).exists()):
                return

    def target(self) -> str | None:
        """The name of the build directory the output directory links to."""
        return os.path.basename(os.readlink(self.output)) if self.output.is_symlink() else None

    def links_beside(self) -> list[str]:
        return sorted(path.name for path in self.output.parent.glob(f".{self.output.name}.link-*"))

    def landed(self, returncode: int, before: str | None, entries: set[str]) -> str:
        """Where a killed build was, from what it left: ``before`` is the link's target
        when it started, ``entries`` what the builds directory held."""
        if self.target() != before:
            return "after publishing" if returncode else "finished before the kill"
        left = set(os.listdir(self.directory)) - entries
        partial = [name for name in left if name.endswith(".partial")]
        if self.links_beside() or len(left) > len(partial):
            return "while publishing: renamed, not linked"
        if partial and (self.directory / partial[0] / MANIFEST_FILENAME).exists():
            return "while publishing: manifest written"
        return "while writing" if partial else "before writing"


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def published_generation(output: Path) -> dt.datetime:
    """The generation of the set ``output`` links to, once it is seen to be whole: each
    file the index names there, with its .gz, of one generation, and nothing else."""
    directory = Path(os.path.realpath(output))
    index = (directory / INDEX_FILENAME).read_bytes()
    generations, locs = lastmods_and_locs(index)
    names = [INDEX_FILENAME] + [urlsplit(loc).path.lstrip("/") for loc in locs]
    assert sorted(os.listdir(directory)) == sorted(
        [MANIFEST_FILENAME, *names, *(name + ".gz" for name in names)]
    )
    for name in names:
        xml = (directory / name).read_bytes()
        assert gzip.decompress((directory / f"{name}.gz").read_bytes()) == xml, name
        assert lastmods_and_locs(xml)[0] <= generations, name
    (generation,) = generations
    return dt.datetime.fromisoformat(generation)
