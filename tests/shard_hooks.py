"""Test-only hooks in the workers of the distributed tests, connected to the
engines' own "task started" signals (Celery's ``task_prerun``, the Tasks
framework's ``task_started``), and set through the environment:

- ``SITEMAPKIT_TEST_PAUSE_PAGE``: the first page of the shard to hold up;
- ``SITEMAPKIT_TEST_PAUSE_FILE``: created by the one worker that holds it up
  (with ``O_EXCL``, so a shard sent again runs through), holding its pid;
- ``SITEMAPKIT_TEST_PAUSE_SECONDS``: for how long.

A test waits for the file, then kills the pid, stops the storage or starts
another coordinator, at a moment it knows a shard is being rendered.
"""

from __future__ import annotations

import os
import time
from typing import Any


def pause_if_asked(payload: Any) -> None:
    page = os.environ.get("SITEMAPKIT_TEST_PAUSE_PAGE")
    path = os.environ.get("SITEMAPKIT_TEST_PAUSE_FILE")
    if not page or not path or not isinstance(payload, dict):
        return
    if payload.get("section") != "articles" or str(payload.get("page")) != page:
        return
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "w") as marker:
        marker.write(str(os.getpid()))
    time.sleep(float(os.environ.get("SITEMAPKIT_TEST_PAUSE_SECONDS", "60")))


def connect() -> None:
    from celery.signals import task_prerun

    def celery_started(args: Any = None, **kwargs: Any) -> None:
        if args:
            pause_if_asked(args[0])

    task_prerun.connect(celery_started, weak=False)
    try:
        from django.tasks.signals import task_started
    except ImportError:  # Django 5.2
        from django_tasks.signals import task_started

    def tasks_started(task_result: Any = None, **kwargs: Any) -> None:
        if task_result is not None and task_result.args:
            pause_if_asked(task_result.args[0])

    task_started.connect(tasks_started, weak=False)
