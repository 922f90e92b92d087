"""Celery: the refresh task of ``SITEMAPKIT_CHANGES = "celery"``, registered with
every Celery app of the project (``apps.py``), and how a commit sends it.

It is sent with the time it is for as its ``eta``, so the worker keeps it until
then. It has no time limit: a refresh that outlives its lease
(``SITEMAPKIT_SHARD_TIMEOUT``, ``changes/due.py``) goes on to its end, and a
second one started meanwhile finds the destination's lock and publishes
nothing. It is acknowledged when it starts (Celery's default): a worker killed
during it loses it, and the lease, running out, lets the next commit
schedule another.
"""

from __future__ import annotations

import datetime
from typing import Any

from celery import shared_task

from django_sitemapkit.changes.due import enqueue
from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.refreshing import run_refresh

TASK_NAME = "django_sitemapkit.refresh_changes"


@shared_task(name=TASK_NAME)  # type: ignore[untyped-decorator,misc,unused-ignore]
def refresh_task(sent_for: str) -> None:
    following = run_refresh(sent_for)
    if following is not None:
        enqueue(following, send)


def send(scheduled: datetime.datetime) -> None:
    options: dict[str, Any] = {
        "eta": scheduled,
        # A broker that is down is found out in a second, not after a commit's
        # request waited on Celery's default retries.
        "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.5},
    }
    if conf.QUEUE:
        options["queue"] = conf.QUEUE
    refresh_task.apply_async(args=[scheduled.isoformat()], **options)
