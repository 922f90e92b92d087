"""Asking for a refresh once a transaction that recorded changes commits.

``SITEMAPKIT_CHANGES = "record"`` asks for none: ``build_sitemaps --changed``
applies the records when the project runs it. ``"celery"`` and ``"tasks"``
send a refresh task, debounced by ``SITEMAPKIT_CHANGES_DELAY``: the first
commit schedules a refresh that far ahead (``due.py``) and sends its task
to run then; the commits before it ask for nothing more.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from django.db import connections, transaction

from django_sitemapkit.changes import due
from django_sitemapkit.conf import conf

logger = logging.getLogger("django_sitemapkit")


def ask_refresh(using: str) -> None:
    """After ``using``'s transaction commits, ask for a refresh: once per transaction
    (a savepoint rolled back drops what it registered, so the list is read, not a flag)."""
    if conf.CHANGES in (None, "record"):
        return
    pending = getattr(connections[using], "run_on_commit", [])
    if any(entry[1] is committed for entry in pending):
        return
    # robust: whatever committed() lets through is logged by Django, never
    # raised into the request whose transaction committed.
    transaction.on_commit(committed, using=using, robust=True)


def committed() -> None:
    """A transaction that recorded changes has committed: schedule a refresh and send
    its task, unless one is scheduled or running. Runs after the commit, outside the
    request's transaction; one or two small queries; never raises (the records are
    durable: the next commit, or ``build_sitemaps --changed``, tries again)."""
    try:
        scheduled = due.schedule()
        if scheduled is not None:
            due.enqueue(scheduled, sender(conf.CHANGES))
    except Exception as exc:
        logger.error(
            "A refresh could not be scheduled after a commit (%s: %s); the change records "
            "stay pending: the next commit tries again, or build_sitemaps --changed applies "
            "them.",
            type(exc).__name__,
            exc,
        )


def sender(engine: str | None) -> Callable[[datetime.datetime], None]:
    """The ``send()`` of the engine's refresh task. Imported here, by name, as
    ``distributed/engines.py`` imports the shard engines: a project without Celery
    or a Tasks framework never imports either."""
    if engine == "celery":
        from django_sitemapkit.distributed.celery_refresh import send
    else:
        from django_sitemapkit.distributed.tasks_refresh import send
    return send
