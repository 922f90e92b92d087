"""Test-only hook in the workers of tests/test_changes_workers.py: a refresh held up
inside its build, where it holds both its lease and the destination's lock.

Connected by tests/settings_refresh.py in the processes whose environment has
``SITEMAPKIT_TEST_REFRESH_WORKER=1`` (the Celery and ``db_worker`` processes,
not the ones that save rows). The build's first query of the article table
once it holds the directory's lock (its ``.partial`` staging directory exists) is
where it waits, as long as ``SITEMAPKIT_TEST_HOOKS`` (JSON) asks:

- ``pause_file``: created by the one process that holds up (``O_EXCL``), holding
  its pid;
- ``release_file``: the build goes on as soon as this file exists;
- ``pause_seconds``: at most this long (60 if not given).

A held build goes on as soon as the file names another ``pause_file`` (or
none), so a test that failed holding one never holds up the next.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shard_hooks import asked, hold


def hold_if_asked(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
    now = asked()
    path = now.get("pause_file")
    if path and sql.startswith("SELECT") and "testapp_article" in sql and locked():
        hold(now, path)
    return execute(sql, *args)


def locked() -> bool:
    """Whether a build holds the lock of the output directory: its staging is there."""
    from django.conf import settings

    # Here, not at the top: the settings import this module, before the apps.
    from django_sitemapkit.build.directory import PARTIAL_SUFFIX

    output = Path(getattr(settings, "SITEMAPKIT_OUTPUT_DIR"))  # noqa: B009  # a test's setting
    builds = output.parent / f".{output.name}.builds"
    return builds.is_dir() and any(p.name.endswith(PARTIAL_SUFFIX) for p in builds.iterdir())


def connect() -> None:
    if os.environ.get("SITEMAPKIT_TEST_REFRESH_WORKER") != "1":
        return
    from django.db.backends.signals import connection_created

    def wrap(connection: Any = None, **kwargs: Any) -> None:
        if hold_if_asked not in connection.execute_wrappers:
            connection.execute_wrappers.append(hold_if_asked)

    connection_created.connect(wrap, weak=False)
