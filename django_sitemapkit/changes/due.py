"""The project's ``Refresh`` row as the refresh's schedule and its lease.

``due`` is ``NULL`` when no refresh is scheduled or running; otherwise it is
the time the scheduled refresh runs at, or the end of the lease of the one
running. Every change of it is one conditional ``UPDATE`` (or the first
``INSERT``), so of two processes racing exactly one wins, and no database
lock is held across a refresh: a slow or dead worker holds a time, which
passes, never a lock.

A ``due`` passed by more than ``SITEMAPKIT_SHARD_TIMEOUT`` is lost: a
refresh task that never came (the broker lost it) or a worker that died
holding the lease. The next commit schedules a refresh again, and a task
that comes late claims it.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from django_sitemapkit.changes.records import PROJECT, database
from django_sitemapkit.conf import conf
from django_sitemapkit.models import Change, Refresh

logger = logging.getLogger("django_sitemapkit")


def schedule() -> datetime.datetime | None:
    """Schedule a refresh ``SITEMAPKIT_CHANGES_DELAY`` from now unless one is already
    scheduled or running: its time if this call scheduled it (the caller sends the
    task), else ``None``. One query when the row exists, two at the first commit."""
    alias = database()
    now = timezone.now()
    due = now + conf.CHANGES_DELAY
    row = Refresh.objects.using(alias).filter(name=PROJECT)
    free = Q(due__isnull=True) | Q(due__lt=now - conf.SHARD_TIMEOUT)
    if row.filter(free).update(due=due):
        return due
    if row.exists():
        return None
    try:
        with transaction.atomic(using=alias):
            Refresh.objects.using(alias).create(name=PROJECT, due=due)
    except IntegrityError:  # another process created it first, and scheduled
        return None
    return due


def current() -> datetime.datetime | None:
    """When the scheduled refresh runs, or until when the running one holds the row."""
    found = Refresh.objects.using(database()).filter(name=PROJECT).values_list("due", flat=True)
    return next(iter(found), None)


def claim() -> datetime.datetime | None:
    """Take the lease of a refresh that is due: the end of the lease
    (``SITEMAPKIT_SHARD_TIMEOUT`` from now), or ``None`` if none is due."""
    now = timezone.now()
    lease = now + conf.SHARD_TIMEOUT
    row = Refresh.objects.using(database()).filter(name=PROJECT, due__lte=now)
    return lease if row.update(due=lease) else None


def release(lease: datetime.datetime) -> None:
    """Give the row back, unless the lease expired and another refresh holds it now."""
    Refresh.objects.using(database()).filter(name=PROJECT, due=lease).update(due=None)


def pending() -> bool:
    """Whether records are waiting for a refresh."""
    return bool(Change.objects.using(database()).filter(applied__isnull=True).exists())


def enqueue(due: datetime.datetime, send: Callable[[datetime.datetime], None]) -> bool:
    """Send the task of the refresh scheduled for ``due``. A failure (the broker is
    down) is logged and the schedule taken back, so that the next commit tries
    again; the records are in the database and lose nothing."""
    try:
        send(due)
    except Exception as exc:
        logger.error(
            "The refresh task for %s could not be sent (%s: %s); the change records stay "
            "pending: the next commit sends it again, or build_sitemaps --changed applies them.",
            due.isoformat(),
            type(exc).__name__,
            exc,
        )
        Refresh.objects.using(database()).filter(name=PROJECT, due=due).update(due=None)
        return False
    return True
