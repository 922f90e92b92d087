"""The worker processes of the real-worker tests (tests/test_distributed_workers.py,
tests/test_changes_workers.py), and what their tests share.

Two Celery workers serve every test of a module: started once (each start
costs seconds of CPU, the most of a test's), checked and made idle before each
test, stopped after the last. The database (an SQLite file, or the PostgreSQL
test database) and Redis are the module's too, and put back as each test
expects them: no task left in Redis, nothing asked of the workers
(tests/shard_hooks.py), the rows seeded afresh. The commands of the setup (the
migration, the seeding, the local builds each set is compared with) run in
processes forked from one that has Django set up (tests/forked_manage.py).
``db_worker`` processes, which only some tests use, are started by each of them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from built_sets import snapshot, without_times
from forked_manage import Forks
from processes import TESTS, manage
from settings import named_database

ROWS = 600  # 12 shards of 50 rows (tests/settings_distributed.py), and the pages

SEED = (
    "import datetime as dt; from testapp.models import Article; "
    "from django_tasks_db.models import DBTaskResult; "
    "DBTaskResult.objects.all().delete(); Article.objects.all().delete(); "
    "Article.objects.bulk_create(Article(slug=f'article-{n}', title=f'Article {n}', "
    "updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)) "
    f"for n in range({ROWS}))"
)
# The keys Celery's workers declare once, at their start: the queues' bindings.
KEPT = b"_kombu.binding."
#: What each test finds the workers doing: nothing, whether taken, held or due later.
BUSY_STATES = ("active", "reserved", "scheduled")


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class Workers:
    """A module's two Celery workers (named ``<hostname>1`` and ``2``), its setup
    commands, and the ``db_worker`` processes of the test running. ``worker_env`` adds
    to ``env`` in the workers' processes only."""

    def __init__(
        self, env: dict[str, str], tmp: Path, hostname: str, worker_env: dict[str, str]
    ) -> None:
        self.env = env
        self.tmp = tmp
        self.hostname = hostname
        self.worker_env = {**env, **worker_env}
        self.hooks = Path(env["SITEMAPKIT_TEST_HOOKS"])
        self.celery: list[subprocess.Popen[bytes]] = []
        self.db_workers: list[subprocess.Popen[bytes]] = []
        self.celery_logs = [tmp / "celery-1.log", tmp / "celery-2.log"]
        #: Each log's size when the test running started.
        self.starts: dict[Path, int] = {}
        self.forks = Forks(env)

    def start(self, program: list[str], log: Path) -> subprocess.Popen[bytes]:
        with open(log, "ab") as output:
            return subprocess.Popen(
                [sys.executable, "-m", *program],
                env=self.worker_env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_celery(self) -> None:
        stop(self.celery)
        self.celery = []
        for number, log in enumerate(self.celery_logs, 1):
            command = [
                "celery", "-A", "celery_app", "worker", "--concurrency", "1",
                "--hostname", f"{self.hostname}{number}@%h", "--without-gossip",
                "--without-mingle", "--without-heartbeat", "--loglevel", "info",
            ]  # fmt: skip
            self.celery.append(self.start(command, log))

    def start_db_workers(self, directory: Path) -> None:
        """Two ``db_worker`` processes, logging in ``directory``, stopped after the test."""
        self.db_workers += [
            self.start(["django", "db_worker", "--interval", "0.1"], directory / f"tasks-{n}.log")
            for n in (1, 2)
        ]

    def migrate(self) -> None:
        migrated = self.forks.manage("migrate", "--verbosity", "0")
        assert migrated.returncode == 0, migrated.stderr

    def idle(self, redis_url: str) -> None:
        """The state every test starts from, but for the rows: nothing asked, no task
        left, both workers up and idle."""
        import redis
        from celery import Celery

        # Nothing asked: a shard or refresh a failed test held goes on at once.
        self.hooks.write_text("{}")
        stop(self.db_workers)
        self.db_workers = []
        if any(worker.poll() is not None for worker in self.celery):
            self.start_celery()
        queue = redis.Redis.from_url(redis_url)
        left = [key for key in queue.scan_iter() if not bytes(key).startswith(KEPT)]
        if left:
            queue.delete(*left)
        # Idle: no shard or refresh of an earlier test still running. ``limit``: the
        # answer as soon as both workers gave theirs, not after the whole timeout.
        inspect = Celery(broker=redis_url).control.inspect(timeout=1, limit=len(self.celery))
        deadline = time.monotonic() + 60
        while True:
            answers = [getattr(inspect, state)() for state in BUSY_STATES]
            if all(
                a is not None and len(a) == len(self.celery) and not any(a.values())
                for a in answers
            ):
                break
            assert time.monotonic() < deadline, f"workers still busy or silent: {answers}"
            time.sleep(0.2)

    def mark(self, logs: Path) -> None:
        """The logs of ``logs`` are read from here on (``logged()``)."""
        self.starts = {log: log.stat().st_size for log in logs.glob("*.log")}

    def ask(self, **hooks: Any) -> None:
        """What the workers do (tests/shard_hooks.py, tests/refresh_hooks.py)."""
        self.hooks.write_text(json.dumps(hooks))

    def logged(self, logs: list[Path]) -> list[str]:
        """What each of ``logs`` got during this test."""
        found = []
        for log in logs:
            with open(log, "rb") as read:
                read.seek(self.starts.get(log, 0))
                found.append(read.read().decode(errors="replace"))
        return found

    def close(self) -> None:
        stop(self.celery + self.db_workers)
        self.forks.close()


class Pool(Workers):
    """The distributed builds' workers, bucket and database; ``Shared`` is one test's
    view of them."""

    def __init__(self, env: dict[str, str], s3_server: Any, bucket: str, tmp: Path) -> None:
        super().__init__(env, tmp, "w", {})
        self.s3_server = s3_server
        self.client = s3_server.client()
        self.bucket = bucket

    def reset(self, redis_url: str) -> None:
        """The state every test starts from."""
        from s3_endpoint import empty_bucket

        self.idle(redis_url)
        self.s3_server.start()
        empty_bucket(self.client, self.bucket)
        seeded = self.forks.manage("shell", "-c", SEED)
        assert seeded.returncode == 0, seeded.stderr
        self.mark(self.tmp)


class Shared:
    """What the processes of one distributed test share, and how to run each of them."""

    def __init__(self, pool: Pool, tmp_path: Path) -> None:
        self.pool = pool
        self.env = pool.env
        self.bucket = pool.bucket
        self.client = pool.client
        self.tmp_path = tmp_path
        self.ask = pool.ask

    def manage(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """``manage.py <args>`` in a new process, ``env`` added to the module's."""
        return manage(*args, settings="distributed", env={**self.env, **env})

    def build(self, via: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """The coordinator, as a cron job runs it."""
        return self.manage("build_sitemaps", "--via", via, *args, **env)

    def popen_build(self, via: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "django", "build_sitemaps", "--via", via],
            env={**self.env, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def seed(self, code: str) -> str:
        """``code`` run by ``manage.py shell`` (forked): the last line it printed."""
        done = self.pool.forks.manage("shell", "-c", code)
        assert done.returncode == 0, done.stderr
        return (done.stdout.splitlines() or [""])[-1]

    def local(self) -> dict[str, bytes]:
        """A local build of the same rows: its files as a web server sees them."""
        output = self.tmp_path / f"local-{time.monotonic_ns()}"
        done = self.pool.forks.manage("build_sitemaps", "--output", str(output), "--verbosity", "0")
        assert done.returncode == 0, done.stderr
        return snapshot(output, built=False)

    def objects(self, prefix: str = "") -> dict[str, bytes]:
        found = {}
        pages = self.client.get_paginator("list_objects_v2")
        for page in pages.paginate(Bucket=self.bucket, Prefix=prefix):
            for item in page.get("Contents", []):
                body = self.client.get_object(Bucket=self.bucket, Key=item["Key"])["Body"]
                found[item["Key"]] = body.read()
        return found

    def published(self) -> dict[str, bytes]:
        return without_times({k: v for k, v in self.objects().items() if "/" not in k})

    def celery_logs(self) -> list[str]:
        """What each Celery worker logged during this test."""
        return self.pool.logged(self.pool.celery_logs)

    def start_db_workers(self) -> None:
        """Two ``db_worker`` processes of django-tasks-db, stopped after the test."""
        self.pool.start_db_workers(self.tmp_path)


def pool_env(
    redis_url: str, storage: dict[str, Any], tmp: Path, database: str | None
) -> dict[str, str]:
    """The environment of every process of the module: the settings, the database
    (an SQLite file when ``database`` is ``None``), Redis and the bucket."""
    env = {
        # Not tox's PYTHONWARNINGS=error: redis-py deprecates calls that
        # Celery's Redis backend makes (setex), which would stop the workers
        # and the coordinator; the suite's own code is held to it in-process.
        **{key: value for key, value in os.environ.items() if key != "PYTHONWARNINGS"},
        "PYTHONPATH": str(TESTS),
        "DJANGO_SETTINGS_MODULE": "settings_distributed",
        "SITEMAPKIT_TEST_REDIS_URL": redis_url,
        "SITEMAPKIT_TEST_S3_STORAGE": json.dumps(storage),
        "SITEMAPKIT_TEST_HOOKS": str(tmp / "hooks.json"),
    }
    if database is None:
        env["SITEMAPKIT_TEST_SQLITE_FILE"] = str(tmp / "db.sqlite3")
    else:
        # The test database, whose rows a transactional test commits.
        env |= named_database(database)
    return env
