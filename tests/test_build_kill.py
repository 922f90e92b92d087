"""Builds killed with SIGKILL at random points, while a crawler reads the published
set from a live server in files mode.

Each build runs ``build_sitemaps`` in a process of its own, forked, as
``manage.py`` would run it, by a runner that has Django set up and changes the
rows between builds (tests/kill_runner.py), on the database every process
shares: every build has a generation of its own, one lastmod in all its URLs.
The crawler (tests/kill_reader.py, a process too) fetches the index and every
file it names, round after round, from the server this test runs. Whatever
point a build dies at, the crawler must never see, in a round no publish
spanned, a file missing, a file of another build or a ``.gz`` that is not its
``.xml``; the output directory must still be a whole set; and the next build
must run to its end and publish.

A build is killed after a random delay from its start, or from the moment it
holds the lock (so more kills land while it writes), or as it publishes
(tests/kill_builds.py). The delays come from a seeded generator: the seed is
printed, and named in each failure; ``SITEMAPKIT_KILL_SEED`` sets it (the
timing is the machine's, so a seed repeats the delays, not always where they
land).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.db import connection
from kill_builds import (
    KILL_POINTS,
    LOCK_NAME,
    SECONDS,
    Builds,
    Runner,
    mean,
    published_generation,
    python,
)
from kill_runner import generation_time
from processes import TESTS, manage, unmeasured
from pytest_django.live_server_helper import LiveServer
from settings import named_database

# 50 kills of a build under coverage.py on a loaded 2-core machine may take
# more than the suite's 300 s; a hung build still fails it, later.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.processes,
    pytest.mark.timeout(900),
]

ROWS = 3_000  # 60 files of 50 URLs (tests/settings_kill.py), and their .gz
KILLS = 50
SEED = int(os.environ.get("SITEMAPKIT_KILL_SEED") or secrets.randbits(32))


@pytest.fixture
def shared_env(tmp_path: Path) -> dict[str, str]:
    """The environment of the processes: the settings and the database they share.

    Not coverage.py's (which measures every process a measured one starts,
    pyproject.toml): the runner's hundred builds run the code of the build
    that the in-process tests measure, and measuring them doubled the CPU this
    test costs CI."""
    env = unmeasured(dict(os.environ)) | {
        "PYTHONPATH": str(TESTS),
        "DJANGO_SETTINGS_MODULE": "settings_kill",
    }
    if connection.vendor == "sqlite":
        env["SITEMAPKIT_TEST_SQLITE_FILE"] = str(tmp_path / "db.sqlite3")
        migrated = manage("migrate", "--verbosity", "0", settings="kill", env=env)
        assert migrated.returncode == 0, migrated.stderr
    else:
        # The test database, whose rows a transactional test commits.
        env |= named_database(connection.settings_dict["NAME"])
    return env


@pytest.fixture
def runner(shared_env: dict[str, str]) -> Iterator[Runner]:
    runner = Runner(shared_env)
    runner.ask(f"seed {ROWS}")
    yield runner
    runner.close()


@pytest.fixture
def builds(live_server: LiveServer, settings: Any, runner: Runner, tmp_path: Path) -> Builds:
    """The builds, of the set the live server serves."""
    builds = Builds(tmp_path / "sitemaps", runner)
    settings.SITEMAPKIT_SERVE = "files"
    settings.SITEMAPKIT_OUTPUT_DIR = str(builds.output)
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    return builds


def publish(builds: Builds, generation: int, where: str) -> None:
    """Build ``generation`` to its end: it must publish, and leave the set before it and
    nothing else of the builds before (neither a killed one's directory nor its link)."""
    builds.runner.ask(f"generation {generation}")
    before = builds.target()
    returncode, errors = builds.run()
    assert returncode == 0, f"{errors} {where}"
    assert builds.target() != before, f"nothing was published {where}"
    assert published_generation(builds.output) == generation_time(generation), where
    kept = {LOCK_NAME, builds.target()} | ({before} if before else set())
    assert set(os.listdir(builds.directory)) == kept, where
    assert builds.links_beside() == [], where


class Crawler:
    """tests/kill_reader.py, reading from the live server: what it said of its rounds."""

    def __init__(self, server: LiveServer, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            python("kill_reader", str(urlsplit(server.url).port)),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.last_start = 0.0
        #: Each round that ended: when it started and ended, and if it was conclusive.
        self.rounds: list[tuple[float, float, bool]] = []

    def hear(self, line: str) -> None:
        said, *times = line.split()
        if said == "started":
            self.last_start = float(times[0])
        else:
            self.rounds.append((float(times[0]), float(times[1]), times[2] == "1"))

    def next_line(self) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "kill_reader stopped"
        self.hear(line)

    def round_started(self, after: float) -> float:
        """Wait for a round to start after ``after``; when it did."""
        while self.last_start <= after:
            self.next_line()
        return self.last_start

    def round_ended(self, started: float) -> None:
        """Wait for the round started at ``started`` to end."""
        while not self.rounds or self.rounds[-1][0] < started:
            self.next_line()

    def stop(self) -> dict[str, Any]:
        """The reader's summary, once it has ended the round it is in."""
        output, errors = self.process.communicate(timeout=SECONDS)  # closes its input
        assert self.process.returncode == 0, errors
        *lines, summary = output.splitlines()
        for line in lines:
            self.hear(line)
        found: dict[str, Any] = json.loads(summary)
        return found

    def conclusive_during(self, intervals: list[tuple[float, float]]) -> int:
        """How many conclusive rounds overlapped one of ``intervals``."""
        return sum(
            1
            for started, ended, conclusive in self.rounds
            if conclusive and any(started < end and begin < ended for begin, end in intervals)
        )


def test_a_killed_build_never_shows_a_crawler_a_mixed_set(
    live_server: LiveServer, builds: Builds, shared_env: dict[str, str]
) -> None:
    print(f"SITEMAPKIT_KILL_SEED={SEED}")
    generator = random.Random(SEED)
    publish(builds, 0, f"(seed {SEED}, first build)")
    crawler = Crawler(live_server, shared_env)
    landed: Counter[str] = Counter()
    killed: list[tuple[float, float]] = []
    try:
        for kill in range(KILLS):
            where = f"(seed {SEED}, kill {kill + 1})"
            generation = 2 * kill + 1
            builds.runner.ask(f"generation {generation}")
            before, entries = builds.target(), set(os.listdir(builds.directory))
            # A round that starts on this set runs while the build is killed, and
            # is conclusive unless the build got as far as publishing.
            watching = crawler.round_started(after=time.monotonic())
            started = time.monotonic()
            build = builds.start()
            builds.kill(build, KILL_POINTS[kill % len(KILL_POINTS)], generator)
            returncode, errors = build.wait()
            killed.append((started, time.monotonic()))
            assert returncode in (0, -9), f"{errors} {where}"
            landed[builds.landed(returncode, before, entries)] += 1
            # The link is where it was, or on the killed build's set if it got that far.
            published = generation if builds.target() != before else generation - 1
            assert published_generation(builds.output) == generation_time(published), where
            crawler.round_ended(watching)

            publish(builds, generation + 1, where)
    finally:
        summary = crawler.stop()
    while_killed = crawler.conclusive_during(killed)
    print(
        f"{summary['rounds']} rounds, {summary['conclusive']} conclusive "
        f"({while_killed} while a build that was then killed ran), "
        f"{summary['rounds'] - summary['conclusive']} spanned a publish "
        f"({summary['problems_while_publishing']} problems seen in those, as allowed); "
        f"kills landed: {dict(sorted(landed.items()))}; a build took "
        f"{mean(builds.seconds):.2f} s, {mean(builds.locked_seconds):.2f} s of it locked."
    )
    violations = "\n".join(summary["first_violations"])
    assert (summary["violations"], violations) == (0, ""), f"seed {SEED}:\n{violations}"
    # Each build killed before it published had a round of its own, started on
    # the set before and ended before the next build: conclusive, then. Most
    # kills land there (some three in five), and a quarter of them at least must,
    # for the verdict to mean something.
    unpublished = KILLS - landed["after publishing"] - landed["finished before the kill"]
    assert while_killed >= unpublished >= KILLS // 4, f"seed {SEED}"
