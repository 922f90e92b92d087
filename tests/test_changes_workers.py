"""The debounced refresh on real workers (changes/schedule.py, changes/due.py,
distributed/refreshing.py, celery_refresh.py, tasks_refresh.py): Redis and two
Celery worker processes, or two ``db_worker`` processes of django-tasks-db, all
on 127.0.0.1, sharing one database (an SQLite file, or the PostgreSQL test
database) and one built directory (tests/refresh_pool.py).

Rows are saved by ``manage.py shell`` in a process of its own, as a request
would save them; its commit sends the refresh task, a worker runs it. Each
refresh logs one line, which the tests count; each set they compare is also
a whole build of the same rows, made elsewhere.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client, override_settings
from refresh_pool import Refreshers, pages, stop
from worker_pool import pool_env

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
    # Real processes sharing one database: the newest pair runs them, on SQLite
    # and on PostgreSQL (pyproject.toml, the "processes" marker).
    pytest.mark.slow,
    pytest.mark.processes,
    pytest.mark.skipif(
        os.environ.get("SITEMAPKIT_TEST_WORKERS") == "0",
        reason="SITEMAPKIT_TEST_WORKERS=0: the real-worker tests are left out",
    ),
]

#: SITEMAPKIT_SHARD_TIMEOUT of every process: the lease, and how long past its
#: time a schedule or a lease is taken as lost.
LEASE = 5
SAVE = (
    "import datetime as dt; from testapp.models import Article; "
    "Article.objects.create(slug={slug!r}, title='New', "
    "updated_at=dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc))"
)


def listing(served: dict[str, bytes], slug: str) -> list[str]:
    """The pages of the set that list the article ``slug``."""
    loc = f"<loc>https://www.example.com/articles/{slug}/</loc>".encode()
    return [name for name, body in served.items() if name.endswith(".xml") and loc in body]


#: The second refresh's failure, whichever error names the site that failed.
BUSY = re.compile(
    r"^\d+ ERROR The refresh failed \(\w+: .*?Another build_sitemaps is writing to \S+; "
    r"wait for it to finish, then run this one again\.\); its change records stay pending",
    re.MULTILINE | re.DOTALL,
)


@pytest.fixture(scope="module")
def pool(
    tmp_path_factory: pytest.TempPathFactory, redis_server: str, django_db_setup: None
) -> Iterator[Refreshers]:
    tmp = tmp_path_factory.mktemp("refresh")
    database = None if connection.vendor == "sqlite" else connection.settings_dict["NAME"]
    env = pool_env(redis_server, {}, tmp, database) | {
        "DJANGO_SETTINGS_MODULE": "settings_refresh",
        "SITEMAPKIT_TEST_OUTPUT_DIR": str(tmp / "out"),
        "SITEMAPKIT_TEST_SHARD_TIMEOUT": str(LEASE),
    }
    each = Refreshers(env, tmp, tmp / "db.sqlite3" if database is None else None)
    try:
        each.migrate()
        each.start_celery()
        yield each
    finally:
        each.close()


@pytest.fixture
def refreshers(pool: Refreshers, redis_server: str) -> Iterator[Refreshers]:
    pool.reset(redis_server)
    try:
        yield pool
    finally:
        pool.ask()
        stop(pool.db_workers)


def wait_for_pid(path: Path) -> int:
    deadline = time.monotonic() + 60
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, "no refresh started to hold up"
        time.sleep(0.05)
    return int(path.read_text())


def lease_lost(refreshers: Refreshers) -> None:
    """Wait until the lease the row holds has run out, and SITEMAPKIT_SHARD_TIMEOUT more:
    then a commit takes it as lost (changes/due.py)."""
    _, lease = refreshers.state()
    assert lease is not None
    wait = lease + dt.timedelta(seconds=LEASE + 0.5) - dt.datetime.now(dt.timezone.utc)
    time.sleep(max(wait.total_seconds(), 0))


@pytest.mark.parametrize("via", ["celery", "tasks"])
def test_a_commit_reaches_the_served_files_through_a_worker(
    refreshers: Refreshers, via: str
) -> None:
    if via == "tasks":
        refreshers.start_db_workers()
    assert listing(refreshers.served(), "fresh") == []
    refreshers.seed(SAVE.format(slug="fresh"), SITEMAPKIT_TEST_CHANGES=via)
    refreshers.wait_until_idle()
    served = refreshers.served()
    assert pages(served) == refreshers.local()
    (page,) = listing(served, "fresh")
    assert refreshers.refreshes() == [1]
    # And the views serve it.
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(refreshers.out)):
        answer = Client().get(f"/{page}")
    assert (answer.status_code, answer.getvalue()) == (200, served[page])


def test_a_burst_of_a_thousand_saves_gives_one_refresh(refreshers: Refreshers) -> None:
    burst = (
        "import datetime as dt; from django.db import connection, transaction; "
        "from django.utils import timezone; from testapp.models import Article; "
        "from django_sitemapkit.models import Refresh\n"
        # The saving process's own durability, not the test's: an SQLite file
        # commits a thousand times faster without waiting for the disk.
        "if connection.vendor == 'sqlite': connection.cursor().execute('PRAGMA synchronous=OFF')\n"
        "due = None\n"
        "for n in range(1000):\n"
        "    with transaction.atomic():\n"
        "        Article.objects.create(slug=f'burst-{n}', title='Burst', "
        "updated_at=dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc))\n"
        "    due = due or Refresh.objects.get().due\n"
        "print(timezone.now().isoformat(), due.isoformat())"
    )
    # A delay the burst fits in, on a loaded machine too; each save is a
    # transaction of its own, as a request's.
    printed = refreshers.seed(burst, SITEMAPKIT_TEST_CHANGES_DELAY="15")
    last_commit, scheduled = map(dt.datetime.fromisoformat, printed.split())
    assert last_commit < scheduled, "the burst outlasted the delay: no test of the debounce"
    refreshers.wait_until_idle()
    assert refreshers.refreshes() == [1000]
    assert refreshers.received() == 1
    assert pages(refreshers.served()) == refreshers.local()


def test_a_rolled_back_change_sends_nothing(refreshers: Refreshers) -> None:
    rolled_back = (
        "from django.db import transaction; from testapp.models import Article; "
        "from django_sitemapkit.models import Change, Refresh\n"
        "with transaction.atomic():\n"
        "    Article.objects.create(slug='rolled-back')\n"
        "    transaction.set_rollback(True)\n"
        "print(Change.objects.count(), Refresh.objects.count())"
    )
    assert refreshers.seed(rolled_back) == "0 0"
    # A commit after it: its one task is all the workers receive.
    refreshers.seed(SAVE.format(slug="kept"))
    refreshers.wait_until_idle()
    assert (refreshers.received(), refreshers.refreshes()) == (1, [1])
    served = refreshers.served()
    assert pages(served) == refreshers.local()
    assert (listing(served, "rolled-back"), len(listing(served, "kept"))) == ([], 1)


def test_a_worker_killed_during_a_refresh_leaves_the_last_set_and_the_records(
    refreshers: Refreshers,
) -> None:
    pause = refreshers.tmp / "paused-kill"
    refreshers.ask(pause_file=str(pause), pause_seconds=120)
    before = refreshers.served()
    refreshers.seed(SAVE.format(slug="first"))
    # Killed inside its build, holding the lease and the directory's lock,
    # as an OOM kill would.
    os.kill(wait_for_pid(pause), signal.SIGKILL)
    refreshers.ask()
    pending, lease = refreshers.state()
    assert pending == 1
    assert lease is not None
    assert lease > dt.datetime.now(dt.timezone.utc)
    assert refreshers.served() == before
    assert refreshers.refreshes() == []
    # The next commit once the lease is lost: one refresh applies both.
    lease_lost(refreshers)
    refreshers.seed(SAVE.format(slug="second"))
    refreshers.wait_until_idle()
    assert refreshers.refreshes() == [2]
    served = refreshers.served()
    assert pages(served) == refreshers.local()
    assert (len(listing(served, "first")), len(listing(served, "second"))) == (1, 1)


def test_two_refreshes_at_once_never_publish_a_mixed_set(refreshers: Refreshers) -> None:
    pause, release = refreshers.tmp / "paused-two", refreshers.tmp / "release-two"
    refreshers.ask(pause_file=str(pause), release_file=str(release), pause_seconds=120)
    # The second refresh on another engine's worker: a Celery worker holding
    # the first would keep an eta task it took until the first is done.
    refreshers.start_db_workers()
    before = refreshers.served()
    refreshers.seed(SAVE.format(slug="first"))
    wait_for_pid(pause)
    # The first refresh outlives its lease (held up in its build): a commit then
    # starts a second, which finds the directory's lock.
    lease_lost(refreshers)
    refreshers.seed(SAVE.format(slug="second"), SITEMAPKIT_TEST_CHANGES="tasks")
    deadline = time.monotonic() + 60
    while not any(BUSY.search(log) for log in refreshers.logged()):
        assert time.monotonic() < deadline, refreshers.logged()
        time.sleep(0.1)
    assert refreshers.served() == before
    release.touch()
    # The first publishes what it read, and schedules the second's record.
    refreshers.wait_until_idle()
    assert refreshers.refreshes() == [1, 1]
    assert pages(refreshers.served()) == refreshers.local()
