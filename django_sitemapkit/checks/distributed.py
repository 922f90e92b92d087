"""System checks of the settings of distributed builds (``build_sitemaps --via``) and
of the database the sections' rows are read from."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.checks import CheckMessage, Error

from django_sitemapkit.conf import conf


def check_distributed(**kwargs: object) -> list[CheckMessage]:
    """``SITEMAPKIT_DATABASE``, ``_QUEUE``, ``_TASK_BACKEND``, ``_SHARD_TIMEOUT``,
    ``_SHARD_ATTEMPTS`` and ``_BUILD_DEADLINE``."""
    return check_database() + check_names() + check_durations() + check_attempts()


def check_database() -> list[CheckMessage]:
    value = conf.raw("DATABASE")
    if value is None or (isinstance(value, str) and value in settings.DATABASES):
        return []
    aliases = ", ".join(repr(alias) for alias in settings.DATABASES)
    return [
        Error(
            f"SITEMAPKIT_DATABASE is {value!r}, which is not an alias of DATABASES.",
            hint=f"Set it to one of {aliases} (a read replica, say), or to None to read each "
            "section from the database its queryset (and the routers) choose.",
            id="sitemapkit.E048",
        )
    ]


def check_names() -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    queue = conf.raw("QUEUE")
    if queue is not None and not (isinstance(queue, str) and queue.strip()):
        errors.append(
            Error(
                f"SITEMAPKIT_QUEUE is {queue!r}, not a queue's name or None.",
                hint="Set it to the name of the queue the shards' workers consume (Celery's, "
                "or the Tasks backend's), or to None for the engine's default queue.",
                id="sitemapkit.E049",
            )
        )
    backend = conf.raw("TASK_BACKEND")
    if not (isinstance(backend, str) and backend.strip()):
        errors.append(
            Error(
                f"SITEMAPKIT_TASK_BACKEND is {backend!r}, not the name of a backend.",
                hint='Set it to a key of TASKS ("default" unless the project names another), '
                "or remove it.",
                id="sitemapkit.E050",
            )
        )
    return errors


def check_durations() -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    timeout = conf.raw("SHARD_TIMEOUT")
    if not positive(timeout):
        errors.append(
            Error(
                f"SITEMAPKIT_SHARD_TIMEOUT is {timeout!r}, not a timedelta of more than 0.",
                hint="Set it to a datetime.timedelta such as timedelta(minutes=10), or remove it.",
                id="sitemapkit.E051",
            )
        )
    deadline = conf.raw("BUILD_DEADLINE")
    if not positive(deadline):
        errors.append(
            Error(
                f"SITEMAPKIT_BUILD_DEADLINE is {deadline!r}, not a timedelta of more than 0.",
                hint="Set it to a datetime.timedelta such as timedelta(hours=6), or remove it.",
                id="sitemapkit.E052",
            )
        )
    return errors


def positive(value: object) -> bool:
    return isinstance(value, dt.timedelta) and value > dt.timedelta(0)


def check_attempts() -> list[CheckMessage]:
    value = conf.raw("SHARD_ATTEMPTS")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return []
    return [
        Error(
            f"SITEMAPKIT_SHARD_ATTEMPTS is {value!r}, not a whole number of 1 or more.",
            hint="Set it to how many times in all a shard whose worker was lost is sent "
            "(3, say), or remove it.",
            id="sitemapkit.E053",
        )
    ]
