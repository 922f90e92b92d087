"""The refresh task's work, the same on every engine (``celery_refresh.py``,
``tasks_refresh.py``): wait for the time it was sent for, claim the lease,
apply the change records, give the lease back, and schedule the next refresh
if records were committed meanwhile.

The task's one argument, the time it was scheduled for, crossed a process
boundary: it is read bounded, and it decides nothing but how long to wait. A
task that comes when no refresh is due does nothing, so a task sent twice, or
forged, runs at most the refresh the row says is due.
"""

from __future__ import annotations

import datetime
import logging
import time

from django.utils import timezone

from django_sitemapkit.build import refresh
from django_sitemapkit.changes import due
from django_sitemapkit.conf import conf

logger = logging.getLogger("django_sitemapkit")
#: The longest ISO 8601 time a task is sent with (``2026-11-27T08:59:26.123456+00:00``).
MOST_TEXT = 40
#: How much later than its time a task may wait for it, for clocks a little apart.
SLACK = datetime.timedelta(seconds=1)


def scheduled_time(text: object) -> datetime.datetime | None:
    """The time a task was sent for, or ``None`` (logged) if it is not one."""
    try:
        if not isinstance(text, str) or len(text) > MOST_TEXT:
            raise ValueError("not a short string")
        found = datetime.datetime.fromisoformat(text)
        if found.tzinfo is None:
            raise ValueError("no time zone")
    except ValueError as exc:
        logger.warning(
            "A refresh task was sent with %r, which is no time (%s): ignored.", text, exc
        )
        return None
    return found


def wait_for(sent_for: datetime.datetime) -> bool:
    """Wait until ``sent_for`` if the row schedules a refresh then and the engine ran
    the task early (a backend that cannot defer); at most the debounce delay.
    ``False``: the row holds another time, whose own task comes for it."""
    current = due.current()
    now = timezone.now()
    if current is None or current <= now:
        return current is not None
    if current != sent_for or current - now > conf.CHANGES_DELAY + SLACK:
        return False
    time.sleep((current - now).total_seconds())
    return True


def run_refresh(text: object) -> datetime.datetime | None:
    """The task: the refresh due at ``text``, if it is still due. Returns the time of
    the next refresh it scheduled (records were committed during this one), for
    the engine to send; raises what the refresh raised (the records stay pending)."""
    sent_for = scheduled_time(text)
    if sent_for is None or not wait_for(sent_for):
        return None
    lease = due.claim()
    if lease is None:
        return None  # another task claimed it first
    try:
        done = refresh.refresh_changes()
        logger.info("Refresh: %s change record(s) applied.", done.records)
    except Exception as exc:
        logger.error(
            "The refresh failed (%s: %s); its change records stay pending: the next commit "
            "schedules another, or build_sitemaps --changed applies them.",
            type(exc).__name__,
            exc,
        )
        raise
    finally:
        due.release(lease)
    return due.schedule() if due.pending() else None
