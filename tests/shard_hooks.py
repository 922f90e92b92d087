"""Test-only hooks in the workers of the distributed tests, connected to the
engines' own "task started" signals (Celery's ``task_prerun``, the Tasks
framework's ``task_started``).

The workers of a test module outlive its tests (tests/worker_pool.py), so what
a test asks of them is read at the start of each task from a JSON file,
``SITEMAPKIT_TEST_HOOKS`` (missing: nothing asked), which each test rewrites:

- ``strict``: the worker renders in strict mode (``SITEMAPKIT_STRICT``);
- ``pause_page``: the first page of the shard to hold up;
- ``pause_file``: created by the one worker that holds it up (with
  ``O_EXCL``, so a shard sent again runs through), holding its pid; the job
  it holds is written first beside it, as JSON, in ``<file>.json``, and the id
  the engine gave the task in ``<file>.task``;
- ``pause_seconds``: for how long at most (60 if not given);
- ``release_file``: the shard goes on as soon as this file exists.

A held shard goes on too as soon as the file names another ``pause_file``
(the next test's, or none), so a test that failed holding one never holds up
the next. A test waits for the pause file, then kills the pid, stops the
storage or starts another coordinator, at a moment it knows a shard is being
rendered.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any


def asked() -> dict[str, Any]:
    path = os.environ.get("SITEMAPKIT_TEST_HOOKS")
    if not path:
        return {}
    try:
        with open(path) as control:
            found = json.load(control)
    except (OSError, ValueError):  # not written yet, or being written
        return {}
    return found if isinstance(found, dict) else {}


def started(payload: Any, task: str) -> None:
    from django.conf import settings

    now = asked()
    # conf reads the setting live: the shard about to run renders as asked.
    settings.SITEMAPKIT_STRICT = bool(now.get("strict"))
    pause_if_asked(now, payload, task)


def pause_if_asked(now: dict[str, Any], payload: Any, task: str) -> None:
    page, path = now.get("pause_page"), now.get("pause_file")
    if page is None or not path or not isinstance(payload, dict):
        return
    if payload.get("section") != "articles" or str(payload.get("page")) != str(page):
        return

    def job_and_task() -> None:
        with open(f"{path}.json", "w") as job:
            json.dump(payload, job)
        with open(f"{path}.task", "w") as named:
            named.write(task)

    hold(now, path, job_and_task)


def hold(now: dict[str, Any], path: str, first: Callable[[], None] | None = None) -> None:
    """Held up as ``now`` asks: ``path`` created by the one process that holds up
    (``O_EXCL``), ``first`` called then, and the pid written; until ``release_file``
    exists, ``pause_seconds`` have passed, or the file names another ``pause_file``.
    The one home of the hold, for the shard's and the refresh's (tests/refresh_hooks.py)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    if first is not None:
        first()
    with os.fdopen(descriptor, "w") as marker:
        marker.write(str(os.getpid()))
    deadline = time.monotonic() + float(now.get("pause_seconds", 60))
    release = now.get("release_file")
    while time.monotonic() < deadline and not (release and os.path.exists(release)):
        if asked().get("pause_file") != path:
            return
        time.sleep(0.05)


def connect() -> None:
    from celery.signals import task_prerun

    def celery_started(args: Any = None, task_id: str = "", **kwargs: Any) -> None:
        if args:
            started(args[0], task_id)

    task_prerun.connect(celery_started, weak=False)
    try:
        from django.tasks.signals import task_started
    except ImportError:  # Django 5.2
        from django_tasks.signals import task_started

    def tasks_started(task_result: Any = None, **kwargs: Any) -> None:
        if task_result is not None and task_result.args:
            started(task_result.args[0], task_result.id)

    task_started.connect(tasks_started, weak=False)
