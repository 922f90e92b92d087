"""The checks of the settings of distributed builds (sitemapkit.E048-E053)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.checks import Error
from django.test import override_settings

from django_sitemapkit.checks.distributed import check_distributed


def test_the_defaults_pass() -> None:
    assert check_distributed() == []


def test_good_values_pass() -> None:
    with override_settings(
        SITEMAPKIT_DATABASE="default",
        SITEMAPKIT_QUEUE="sitemaps",
        SITEMAPKIT_TASK_BACKEND="db",
        SITEMAPKIT_SHARD_TIMEOUT=dt.timedelta(seconds=30),
        SITEMAPKIT_SHARD_ATTEMPTS=1,
        SITEMAPKIT_BUILD_DEADLINE=dt.timedelta(minutes=5),
    ):
        assert check_distributed() == []


@pytest.mark.parametrize(
    ("setting", "value", "expected"),
    [
        (
            "DATABASE",
            "replica",
            Error(
                "SITEMAPKIT_DATABASE is 'replica', which is not an alias of DATABASES.",
                hint="Set it to one of 'default' (a read replica, say), or to None to read each "
                "section from the database its queryset (and the routers) choose.",
                id="sitemapkit.E048",
            ),
        ),
        (
            "QUEUE",
            " ",
            Error(
                "SITEMAPKIT_QUEUE is ' ', not a queue's name or None.",
                hint="Set it to the name of the queue the shards' workers consume (Celery's, "
                "or the Tasks backend's), or to None for the engine's default queue.",
                id="sitemapkit.E049",
            ),
        ),
        (
            "TASK_BACKEND",
            None,
            Error(
                "SITEMAPKIT_TASK_BACKEND is None, not the name of a backend.",
                hint='Set it to a key of TASKS ("default" unless the project names another), '
                "or remove it.",
                id="sitemapkit.E050",
            ),
        ),
        (
            "SHARD_TIMEOUT",
            600,
            Error(
                "SITEMAPKIT_SHARD_TIMEOUT is 600, not a timedelta of more than 0.",
                hint="Set it to a datetime.timedelta such as timedelta(minutes=10), or remove it.",
                id="sitemapkit.E051",
            ),
        ),
        (
            "BUILD_DEADLINE",
            dt.timedelta(0),
            Error(
                "SITEMAPKIT_BUILD_DEADLINE is datetime.timedelta(0), not a timedelta of more "
                "than 0.",
                hint="Set it to a datetime.timedelta such as timedelta(hours=6), or remove it.",
                id="sitemapkit.E052",
            ),
        ),
        (
            "SHARD_ATTEMPTS",
            0,
            Error(
                "SITEMAPKIT_SHARD_ATTEMPTS is 0, not a whole number of 1 or more.",
                hint="Set it to how many times in all a shard whose worker was lost is sent "
                "(3, say), or remove it.",
                id="sitemapkit.E053",
            ),
        ),
    ],
)
def test_a_bad_value_is_named_with_its_fix(setting: str, value: Any, expected: Error) -> None:
    with override_settings(**{f"SITEMAPKIT_{setting}": value}):
        assert check_distributed() == [expected]
