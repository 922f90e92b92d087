"""Django's Tasks framework: the refresh task of ``SITEMAPKIT_CHANGES = "tasks"``,
and how a commit enqueues it on ``SITEMAPKIT_TASK_BACKEND``.

A backend that can defer a task (``supports_defer``, as django-tasks-db's
does) is given the time it is for as ``run_after``; on one that cannot, the
task waits for it itself, at most ``SITEMAPKIT_CHANGES_DELAY``
(``refreshing.py``). The framework has no time limit: a worker that dies
during a refresh leaves its lease, which runs out after
``SITEMAPKIT_SHARD_TIMEOUT`` (``changes/due.py``).
"""

from __future__ import annotations

import datetime
from typing import Any

from django_sitemapkit.changes.due import enqueue
from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.refreshing import run_refresh

try:
    from django.tasks import task, task_backends
except ImportError:  # Django 5.2
    from django_tasks import task, task_backends  # type: ignore[no-redef,assignment,unused-ignore]


@task()  # type: ignore[untyped-decorator,misc,unused-ignore]
def refresh_task(sent_for: str) -> None:
    following = run_refresh(sent_for)
    if following is not None:
        enqueue(following, send)


def send(scheduled: datetime.datetime) -> None:
    options: dict[str, Any] = {"backend": conf.TASK_BACKEND}
    if conf.QUEUE:
        options["queue_name"] = conf.QUEUE
    if task_backends[conf.TASK_BACKEND].supports_defer:
        options["run_after"] = scheduled
    refresh_task.using(**options).enqueue(scheduled.isoformat())
