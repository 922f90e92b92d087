"""The processes of the real-worker tests (tests/test_distributed_workers.py), and
what their tests share.

Two Celery workers serve every test of the module: started once (each start
costs seconds of CPU, the most of a test's), checked and made idle before each
test, stopped after the last. The database (an SQLite file, or the
PostgreSQL test database), the bucket and Redis are the module's too, and put
back as each test expects them: the rows seeded afresh, the bucket emptied,
no task left in Redis, nothing asked of the workers (tests/shard_hooks.py).
``db_worker`` processes, which only two tests use, are started by each of
them.
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
from processes import TESTS, manage
from s3_endpoint import empty_bucket
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


class Pool:
    """The module's processes and services; ``Shared`` is one test's view of them."""

    def __init__(self, env: dict[str, str], s3_server: Any, bucket: str, tmp: Path) -> None:
        self.env = env
        self.s3_server = s3_server
        self.client = s3_server.client()
        self.bucket = bucket
        self.tmp = tmp
        self.hooks = Path(env["SITEMAPKIT_TEST_HOOKS"])
        self.celery: list[subprocess.Popen[bytes]] = []
        self.logs = [tmp / "celery-1.log", tmp / "celery-2.log"]

    def start_celery(self) -> None:
        stop(self.celery)
        self.celery = []
        for number, log in enumerate(self.logs, 1):
            command = [
                sys.executable, "-m", "celery", "-A", "celery_app", "worker",
                "--concurrency", "1", "--hostname", f"w{number}@%h", "--without-gossip",
                "--without-mingle", "--without-heartbeat", "--loglevel", "info",
            ]  # fmt: skip
            with open(log, "ab") as output:
                self.celery.append(
                    subprocess.Popen(
                        command,
                        env=self.env,
                        stdout=output,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )

    def reset(self, redis_url: str) -> None:
        """The state every test starts from."""
        import redis
        from celery import Celery

        # Nothing asked: a shard a failed test held goes on at once.
        self.hooks.write_text("{}")
        if any(worker.poll() is not None for worker in self.celery):
            self.start_celery()
        queue = redis.Redis.from_url(redis_url)
        left = [key for key in queue.scan_iter() if not bytes(key).startswith(KEPT)]
        if left:
            queue.delete(*left)
        # Idle: no shard of an earlier test still being rendered into the bucket.
        inspect = Celery(broker=redis_url).control.inspect(timeout=1)
        deadline = time.monotonic() + 60
        while True:
            answers = [inspect.active(), inspect.reserved()]
            if all(
                a is not None and len(a) == len(self.celery) and not any(a.values())
                for a in answers
            ):
                break
            assert time.monotonic() < deadline, f"workers still busy or silent: {answers}"
            time.sleep(0.2)
        self.s3_server.start()
        empty_bucket(self.client, self.bucket)
        seeded = manage("shell", "-c", SEED, settings="distributed", env=self.env)
        assert seeded.returncode == 0, seeded.stderr


class Shared:
    """What the processes of one test share, and how to run each of them."""

    def __init__(self, pool: Pool, tmp_path: Path) -> None:
        self.pool = pool
        self.env = pool.env
        self.bucket = pool.bucket
        self.client = pool.client
        self.tmp_path = tmp_path
        self.workers: list[subprocess.Popen[bytes]] = []
        self.log_starts = [log.stat().st_size if log.exists() else 0 for log in pool.logs]

    def ask(self, **hooks: Any) -> None:
        """What the workers do at the start of each shard (tests/shard_hooks.py)."""
        self.pool.hooks.write_text(json.dumps(hooks))

    def manage(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return manage(*args, settings="distributed", env={**self.env, **env})

    def build(self, via: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return self.manage("build_sitemaps", "--via", via, *args, **env)

    def popen_build(self, via: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "django", "build_sitemaps", "--via", via],
            env={**self.env, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def seed(self, code: str) -> None:
        done = self.manage("shell", "-c", code)
        assert done.returncode == 0, done.stderr

    def local(self) -> dict[str, bytes]:
        """A local build of the same rows: its files as a web server sees them."""
        output = self.tmp_path / f"local-{time.monotonic_ns()}"
        done = self.manage("build_sitemaps", "--output", str(output), "--verbosity", "0")
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
        found = []
        for log, start in zip(self.pool.logs, self.log_starts, strict=True):
            with open(log, "rb") as read:
                read.seek(start)
                found.append(read.read().decode(errors="replace"))
        return found

    def start_db_workers(self) -> None:
        """Two ``db_worker`` processes of django-tasks-db, stopped after the test."""
        for number in (1, 2):
            log = self.tmp_path / f"tasks-{number}.log"
            with open(log, "wb") as output:
                self.workers.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "django", "db_worker", "--interval", "0.1"],
                        env=self.env,
                        stdout=output,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )


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
