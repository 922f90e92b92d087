"""Test-only hooks in the workers of the distributed tests, connected to the
engines' own "task started" signals (Celery's ``task_prerun``, the Tasks
framework's ``task_started``), and set through the environment:

- ``SITEMAPKIT_TEST_PAUSE_PAGE``: the first page of the shard to hold up;
- ``SITEMAPKIT_TEST_PAUSE_FILE``: created by the one worker that holds it up
  (with ``O_EXCL``, so a shard sent again runs through), holding its pid; the
  job it holds is written first beside it, as JSON, in ``<file>.json``, and the
  id the engine gave the task in ``<file>.task``;
- ``SITEMAPKIT_TEST_PAUSE_SECONDS``: for how long;
- ``SITEMAPKIT_TEST_RELEASE_FILE``: if set, the shard goes on as soon as this
  file exists (and after the seconds above at the latest).

A test waits for the file, then kills the pid, stops the storage or starts
another coordinator, at a moment it knows a shard is being rendered.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any


def pause_if_asked(payload: Any, task: str) -> None:
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
    with open(f"{path}.json", "w") as job:
        json.dump(payload, job)
    with open(f"{path}.task", "w") as named:
        named.write(task)
    with os.fdopen(descriptor, "w") as marker:
        marker.write(str(os.getpid()))
    deadline = time.monotonic() + float(os.environ.get("SITEMAPKIT_TEST_PAUSE_SECONDS", "60"))
    release = os.environ.get("SITEMAPKIT_TEST_RELEASE_FILE")
    while time.monotonic() < deadline and not (release and os.path.exists(release)):
        time.sleep(0.05)


def connect() -> None:
    from celery.signals import task_prerun

    def celery_started(args: Any = None, task_id: str = "", **kwargs: Any) -> None:
        if args:
            pause_if_asked(args[0], task_id)

    task_prerun.connect(celery_started, weak=False)
    try:
        from django.tasks.signals import task_started
    except ImportError:  # Django 5.2
        from django_tasks.signals import task_started

    def tasks_started(task_result: Any = None, **kwargs: Any) -> None:
        if task_result is not None and task_result.args:
            pause_if_asked(task_result.args[0], task_result.id)

    task_started.connect(tasks_started, weak=False)
