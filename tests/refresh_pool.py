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
import time
from contextlib import closing
from pathlib import Path

from built_sets import snapshot, undated
from forked_manage import Forks
from processes import manage
from worker_pool import ROWS, SEED, Workers, stop

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


class Refreshers(Workers):
    """The module's workers, database and directory. The seeding runs without change
    capture (its deletes are no change to refresh), in forks of their own."""

    def __init__(self, env: dict[str, str], tmp: Path, sqlite_file: Path | None) -> None:
        super().__init__(env, tmp, "r", {"SITEMAPKIT_TEST_REFRESH_WORKER": "1"})
        self.out = Path(env["SITEMAPKIT_TEST_OUTPUT_DIR"])
        self.sqlite_file = sqlite_file
        self.seeding = Forks({**env, "SITEMAPKIT_TEST_CHANGES": ""})

    def reset(self, redis_url: str) -> None:
        self.idle(redis_url)
        seeded = self.seeding.manage("shell", "-c", f"{SEED}; {CLEAN}")
        assert seeded.returncode == 0, seeded.stderr
        built = self.forks.manage("build_sitemaps", "--verbosity", "0")
        assert built.returncode == 0, built.stderr
        self.mark(self.tmp)

    def start_db_workers(self, directory: Path | None = None) -> None:
        """Two ``db_worker`` processes, logging beside the Celery workers."""
        super().start_db_workers(self.tmp if directory is None else directory)

    def manage(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """``manage.py <args>`` in a new process, ``env`` added to the module's."""
        return manage(*args, settings="refresh", env={**self.env, **env})

    def seed(self, code: str, **env: str) -> str:
        """Run ``code`` in ``manage.py shell``, in a process of its own as a request
        saving rows would be: the last line it printed."""
        done = self.manage("shell", "-c", code, **env)
        assert done.returncode == 0, done.stderr
        return (done.stdout.splitlines() or [""])[-1]

    def logged(self, logs: list[Path] | None = None) -> list[str]:
        """What each worker logged during this test."""
        return super().logged(sorted(self.tmp.glob("*.log")) if logs is None else logs)

    def refreshes(self) -> list[int]:
        """The records each refresh of this test applied, as the workers logged them."""
        return [int(n) for log in self.logged() for n in REFRESHED.findall(log)]

    def received(self) -> int:
        """How many refresh tasks the Celery workers received during this test."""
        return sum(len(RECEIVED.findall(log)) for log in self.logged())

    def close(self) -> None:
        super().close()
        self.seeding.close()

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
        done = self.forks.manage("build_sitemaps", "--output", str(output), "--verbosity", "0")
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
