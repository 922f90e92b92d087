"""System checks of the settings of distributed builds (``build_sitemaps --via``) and
of the database the sections' rows are read from."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import CheckMessage, Error

from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.conf import conf


def check_distributed(**kwargs: object) -> list[CheckMessage]:
    """``SITEMAPKIT_DATABASE``, ``_QUEUE``, ``_TASK_BACKEND``, ``_SHARD_TIMEOUT``,
    ``_SHARD_ATTEMPTS`` and ``_BUILD_DEADLINE``."""
    return check_database() + check_values(
        "QUEUE", "TASK_BACKEND", "SHARD_TIMEOUT", "BUILD_DEADLINE", "SHARD_ATTEMPTS"
    )


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
