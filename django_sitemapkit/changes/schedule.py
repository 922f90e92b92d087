"""Asking for a refresh once a transaction that recorded changes commits.

``SITEMAPKIT_CHANGES = "record"`` asks for none: ``build_sitemaps --changed``
applies the records when the project runs it. ``"celery"`` and ``"tasks"``
send a refresh task, debounced by ``SITEMAPKIT_CHANGES_DELAY``.
"""

from __future__ import annotations

from django.db import connections, transaction

from django_sitemapkit.conf import conf


def ask_refresh(using: str) -> None:
    """After ``using``'s transaction commits, ask for a refresh: once per transaction
    (a savepoint rolled back drops what it registered, so the list is read, not a flag)."""
    if conf.CHANGES in (None, "record"):
        return
    pending = getattr(connections[using], "run_on_commit", [])
    if any(entry[1] is committed for entry in pending):
        return
    transaction.on_commit(committed, using=using)


def committed() -> None:
    """A transaction that recorded changes has committed (the refresh task's engine is
    added by the scheduling of ``SITEMAPKIT_CHANGES``)."""
