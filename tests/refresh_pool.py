"""The processes of tests/test_changes_workers.py and what its tests share: two Celery
workers for the module, ``db_worker`` processes for the tests that ask, the
database every process shares (an SQLite file, or the PostgreSQL test
database), and the built directory, put back before each test as it expects:
the rows seeded afresh, no record pending, no refresh scheduled, one build.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from built_sets import snapshot, undated
from processes import manage
from worker_pool import KEPT, ROWS, SEED, stop

from django_sitemapkit.names import INDEX_FILENAME

#: The workers' line for each refresh (distributed/refreshing.py).
REFRESHED = re.compile(r"^\d+ INFO Refresh: (\d+) change record\(s\) applied\.$", re.MULTILINE)
#: Celery's line for each task a worker takes from the broker.
RECEIVED = re.compile(r"Task django_sitemapkit\.refresh_changes\[[\w-]+\] received")
#: What a test starts from, besides SEED's rows: nothing recorded, nothing scheduled.
CLEAN = (
    "from django_sitemapkit.models import Change, Refresh; "
    "Change.objects.all().delete(); Refresh.objects.all().delete()"
)


class Refreshers:
    """The module's workers, database and directory."""

    def __init__(self, env: dict[str, str], tmp: Path, sqlite_file: Path | None) -> None:
        self.env = env
        self.tmp = tmp
        self.out = Path(env["SITEMAPKIT_TEST_OUTPUT_DIR"])
        self.hooks = Path(env["SITEMAPKIT_TEST_HOOKS"])
        self.sqlite_file = sqlite_file
        self.celery: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []
        self.starts: list[int] = []

    def start(self, program: list[str], log: Path) -> subprocess.Popen[bytes]:
        with open(log, "ab") as output:
            return subprocess.Popen(
                [sys.executable, "-m", *program],
                env={**self.env, "SITEMAPKIT_TEST_REFRESH_WORKER": "1"},
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_celery(self) -> None:
        stop(self.celery)
        self.celery = []
        for number in (1, 2):
            command = [
                "celery", "-A", "celery_app", "worker", "--concurrency", "1",
                "--hostname", f"r{number}@%h", "--without-gossip", "--without-mingle",
                "--without-heartbeat", "--loglevel", "info",
            ]  # fmt: skip
            self.celery.append(self.start(command, self.tmp / f"celery-{number}.log"))

    def start_db_workers(self) -> None:
        """Two ``db_worker`` processes, stopped after the test."""
        self.workers = [
            self.start(
                ["django", "db_worker", "--interval", "0.1"], self.tmp / f"tasks-{number}.log"
            )
            for number in (1, 2)
        ]

    def reset(self, redis_url: str) -> None:
        import redis
        from celery import Celery

        self.hooks.write_text("{}")
        stop(self.workers)
        self.workers = []
        if any(worker.poll() is not None for worker in self.celery):
            self.start_celery()
        queue = redis.Redis.from_url(redis_url)
        left = [key for key in queue.scan_iter() if not bytes(key).startswith(KEPT)]
        if left:
            queue.delete(*left)
        inspect = Celery(broker=redis_url).control.inspect(timeout=1)
        deadline = time.monotonic() + 60
        while True:
            answers = [inspect.active(), inspect.reserved(), inspect.scheduled()]
            if all(a is not None and len(a) == 2 and not any(a.values()) for a in answers):
                break
            assert time.monotonic() < deadline, f"workers still busy or silent: {answers}"
            time.sleep(0.2)
        # Without capture: the seed's deletes are no change to refresh.
        self.seed(f"{SEED}; {CLEAN}", SITEMAPKIT_TEST_CHANGES="")
        built = self.manage("build_sitemaps", "--verbosity", "0")
        assert built.returncode == 0, built.stderr
        self.logs = sorted(self.tmp.glob("*.log"))
        self.starts = [log.stat().st_size for log in self.logs]

    def manage(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return manage(*args, settings="refresh", env={**self.env, **env})

    def seed(self, code: str, **env: str) -> str:
        """Run ``code`` in ``manage.py shell``: the last line it printed."""
        done = self.manage("shell", "-c", code, **env)
        assert done.returncode == 0, done.stderr
        return (done.stdout.splitlines() or [""])[-1]

    def ask(self, **hooks: Any) -> None:
        import json

        self.hooks.write_text(json.dumps(hooks))

    def logged(self) -> list[str]:
        """What each worker logged during this test."""
        found = []
        for log in sorted(self.tmp.glob("*.log")):
            start = dict(zip(self.logs, self.starts, strict=True)).get(log, 0)
            with open(log, "rb") as read:
                read.seek(start)
                found.append(read.read().decode(errors="replace"))
        return found

    def refreshes(self) -> list[int]:
        """The records each refresh of this test applied, as the workers logged them."""
        return [int(n) for log in self.logged() for n in REFRESHED.findall(log)]

    def received(self) -> int:
        """How many refresh tasks the Celery workers received during this test."""
        return sum(len(RECEIVED.findall(log)) for log in self.logged())

    def state(self) -> tuple[int, dt.datetime | None]:
        """The records pending, and the refresh row's ``due``."""
        sql = (
            "SELECT (SELECT COUNT(*) FROM sitemapkit_change WHERE applied IS NULL), "
            "(SELECT due FROM sitemapkit_refresh WHERE name = 'project')"
        )
        if self.sqlite_file is not None:
            with closing(sqlite3.connect(self.sqlite_file, timeout=30)) as database:
                count, due = database.execute(sql).fetchone()
            if isinstance(due, str):
                due = dt.datetime.fromisoformat(due).replace(tzinfo=dt.timezone.utc)
            return count, due
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(sql)
            count, due = cursor.fetchone()
        return count, due

    def wait_until_idle(self) -> None:
        """Until nothing is pending and no refresh is scheduled or running."""
        deadline = time.monotonic() + 90
        while self.state() != (0, None):
            assert time.monotonic() < deadline, f"still pending or scheduled: {self.state()}"
            time.sleep(0.2)

    def served(self) -> dict[str, bytes]:
        return undated(snapshot(self.out, built=False))

    def local(self) -> list[bytes]:
        """The pages of a whole build of the same rows, elsewhere (``pages()``)."""
        output = self.tmp / f"local-{time.monotonic_ns()}"
        done = self.manage("build_sitemaps", "--output", str(output), "--verbosity", "0")
        assert done.returncode == 0, done.stderr
        return pages(snapshot(output))


def pages(files: dict[str, bytes]) -> list[bytes]:
    """The pages of a set, whatever their numbers: a set's files keep their names
    from build to build (build/sets.py), so a refreshed set numbers its pages as
    its history did, a first build from 1."""
    return sorted(
        body for name, body in files.items() if name.endswith(".xml") and name != INDEX_FILENAME
    )


__all__ = ["ROWS", "Refreshers", "pages", "stop"]
