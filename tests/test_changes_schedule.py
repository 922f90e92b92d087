"""The debounced refresh's rules (django_sitemapkit/changes/schedule.py, due.py, and
distributed/refreshing.py), against the real database, without workers: what a
commit schedules and sends, the lease a refresh claims and gives back, and a
lease or schedule that was lost.

The task is sent to Django's ``DummyBackend``, which keeps what it is sent
and runs nothing: the sends are counted, the task is run here when a test
says so. The real workers are tests/test_changes_workers.py's.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone
from testapp.models import Article

from django_sitemapkit.changes import due, records
from django_sitemapkit.distributed.refreshing import run_refresh
from django_sitemapkit.distributed.tasks_refresh import refresh_task
from django_sitemapkit.models import Change, Refresh

pytestmark = pytest.mark.django_db(transaction=True)
try:
    from django.tasks import task_backends

    TASKS_PACKAGE = "django.tasks"
except ImportError:  # Django 5.2: the backport
    from django_tasks import task_backends  # type: ignore[no-redef,assignment,unused-ignore]

    TASKS_PACKAGE = "django_tasks"
DELAY = dt.timedelta(seconds=30)
TIMEOUT = dt.timedelta(minutes=10)


@pytest.fixture
def sent(out: Path) -> Iterator[list[Any]]:
    """The refresh tasks sent, as the backend keeps them."""
    with override_settings(
        SITEMAPKIT_CHANGES="tasks",
        SITEMAPKIT_CHANGES_DELAY=DELAY,
        SITEMAPKIT_SHARD_TIMEOUT=TIMEOUT,
        SITEMAPKIT_OUTPUT_DIR=str(out),
        TASKS={"default": {"BACKEND": f"{TASKS_PACKAGE}.backends.dummy.DummyBackend"}},
    ):
        yield task_backends["default"].results  # type: ignore[attr-defined]


def row() -> Any:
    return Refresh.objects.filter(name="project").values_list("due", flat=True).first()


def set_due(value: dt.datetime | None) -> None:
    Refresh.objects.update_or_create(name="project", defaults={"due": value})


def test_a_burst_of_commits_sends_one_task_for_the_delay_ahead(sent: list[Any]) -> None:
    before = timezone.now()
    for n in range(50):
        Article.objects.create(slug=f"a-{n}")
    after = timezone.now()
    scheduled = row()
    assert before + DELAY <= scheduled <= after + DELAY
    assert [(r.task.name, r.args, r.task.run_after) for r in sent] == [
        ("refresh_task", [scheduled.isoformat()], scheduled)
    ]
    assert Change.objects.count() == 50


def test_a_rolled_back_change_sends_nothing(sent: list[Any]) -> None:
    with transaction.atomic():
        Article.objects.create(slug="a")
        transaction.set_rollback(True)
    assert (sent, row(), Change.objects.count()) == ([], None, 0)
    # A savepoint rolled back inside a transaction that commits something else.
    with transaction.atomic():
        Article.objects.create(slug="kept")
        with transaction.atomic():
            Article.objects.create(slug="dropped")
            transaction.set_rollback(True)
    assert len(sent) == 1
    assert Change.objects.count() == 1


def test_a_commit_adds_two_small_queries_after_it_and_none_inside(sent: list[Any]) -> None:
    from django.test.utils import CaptureQueriesContext

    Article.objects.create(slug="first")
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        Article.objects.create(slug="second")
        inside = [q["sql"] for q in queries]
    # What came after the block: its COMMIT (as Django logs it on some
    # databases), then what the on-commit callback did.
    after_commit = [q["sql"] for q in queries][len(inside) :]
    after_commit = [sql for sql in after_commit if sql != "COMMIT"]
    # In the transaction: the row and its record, nothing of the refresh.
    assert not [sql for sql in inside if "sitemapkit_refresh" in sql]
    name = connection.ops.quote_name  # MySQL quotes with backticks
    assert [sql.split()[:3] for sql in inside if sql.startswith("INSERT")] == [
        ["INSERT", "INTO", name("testapp_article")],
        ["INSERT", "INTO", name("sitemapkit_change")],
    ]
    # After it: the conditional UPDATE, which finds a refresh scheduled, and the
    # row's existence; nothing sent.
    assert [sql.split()[:2] for sql in after_commit] == [
        ["UPDATE", name("sitemapkit_refresh")],
        ["SELECT", "1"],
    ]
    assert len(sent) == 1


def test_a_refresh_claims_the_lease_and_commits_meanwhile_send_nothing(sent: list[Any]) -> None:
    Article.objects.create(slug="a")
    assert due.claim() is None  # not due yet
    set_due(timezone.now() - dt.timedelta(seconds=1))
    start = timezone.now()
    lease = due.claim()
    assert lease is not None
    assert start + TIMEOUT <= lease <= timezone.now() + TIMEOUT
    assert due.claim() is None  # held
    Article.objects.create(slug="b")
    assert (row(), len(sent)) == (lease, 1)
    due.release(lease)
    assert row() is None
    # Records are pending: the next commit, or the refresh that released, schedules.
    assert due.pending()
    assert due.schedule() == row() is not None


def test_a_lease_given_back_late_leaves_the_next_holder_alone(sent: list[Any]) -> None:
    set_due(timezone.now() - dt.timedelta(seconds=1))
    first = due.claim()
    assert first is not None
    set_due(timezone.now() - dt.timedelta(seconds=1))  # as if it ran out
    second = due.claim()
    assert second is not None
    assert second != first
    due.release(first)
    assert row() == second


@pytest.mark.parametrize(
    ("passed", "rescheduled"),
    [(TIMEOUT - dt.timedelta(minutes=1), False), (TIMEOUT + dt.timedelta(seconds=1), True)],
)
def test_a_due_passed_by_more_than_the_shard_timeout_is_lost(
    sent: list[Any], passed: dt.timedelta, rescheduled: bool
) -> None:
    # A lease of a killed worker, or a task the broker lost: within the timeout
    # the task may still come; past it, the next commit schedules again.
    old = timezone.now() - passed
    set_due(old)
    Article.objects.create(slug="a")
    assert (row() != old, len(sent)) == (rescheduled, int(rescheduled))


def test_the_task_applies_the_records_and_gives_the_row_back(
    sent: list[Any], out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    Article.objects.create(slug="new-article", updated_at=timezone.now())
    (scheduled,) = [r.args[0] for r in sent]
    set_due(timezone.now() - dt.timedelta(seconds=1))  # its time has come
    with caplog.at_level(logging.INFO, logger="django_sitemapkit"):
        assert run_refresh(scheduled) is None
    assert "Refresh: 1 change record(s) applied." in caplog.messages
    pending = Change.objects.filter(applied__isnull=True)
    assert (row(), pending.count(), records.version()) == (None, 0, 1)
    assert b"/articles/new-article/" in (out / "sitemap-articles-1.xml").read_bytes()
    # Sent again (a duplicate, or forged): nothing is due, nothing is done.
    assert run_refresh(scheduled) is None
    assert len(sent) == 1


def test_records_committed_during_a_refresh_schedule_the_next(sent: list[Any], out: Path) -> None:
    Article.objects.create(slug="a", updated_at=timezone.now())
    set_due(timezone.now() - dt.timedelta(seconds=1))
    committed_during: list[Any] = []

    def commit_once(execute: Any, sql: str, *args: Any) -> Any:
        # The refresh's build reading the articles: another save commits then.
        if sql.startswith("SELECT") and "testapp_article" in sql and not committed_during:
            committed_during.append(None)
            committed_during[0] = Article.objects.create(slug="b").pk
        return execute(sql, *args)

    with connection.execute_wrapper(commit_once):
        refresh_task.call(sent[0].args[0])
    assert committed_during
    # Its commit found the lease and sent nothing; the refresh, releasing, did.
    following = row()
    assert following is not None
    assert following > timezone.now()
    assert [r.args for r in sent] == [sent[0].args, [following.isoformat()]]
    pending = Change.objects.filter(applied__isnull=True)
    assert list(pending.values_list("row", flat=True)) == [str(committed_during[0])]


@pytest.mark.parametrize("text", ["tomorrow", "2026-01-01T00:00:00", 5, "9" * 100])
def test_a_task_sent_with_no_time_does_nothing(
    sent: list[Any], text: object, caplog: pytest.LogCaptureFixture
) -> None:
    Article.objects.create(slug="a")
    set_due(timezone.now() - dt.timedelta(seconds=1))
    assert run_refresh(text) is None
    assert caplog.messages[-1].startswith(f"A refresh task was sent with {text!r}, which is no")
    assert Change.objects.count() == 1


def test_a_broker_down_keeps_the_records_and_the_next_commit_sends(
    sent: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    from celery import Celery
    from celery._state import get_current_app

    before = get_current_app()
    # The project's Celery app, its broker down: nothing listens on port 1.
    Celery("down", broker="redis://127.0.0.1:1/0").set_current()
    try:
        with override_settings(SITEMAPKIT_CHANGES="celery"):
            Article.objects.create(slug="a")  # the request goes on
    finally:
        before.set_current()
    assert caplog.messages[-1].startswith("The refresh task for ")
    assert caplog.messages[-1].endswith(
        "the change records stay pending: the next commit sends it again, or "
        "build_sitemaps --changed applies them."
    )
    assert (row(), Change.objects.count()) == (None, 1)
    Article.objects.create(slug="b")
    assert len(sent) == 1
