"""System checks of the engine the refresh task is sent to (checks/refresh_engines.py):
E115-E117, W063, and that they are registered.

A package "not installed" is one Python refuses to import: ``None`` in
``sys.modules``, which ``find_spec()`` and ``import`` both honour.
"""

from __future__ import annotations

import sys

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks import check_refresh_engines

DB_BACKEND = {"BACKEND": "django_tasks_db.DatabaseBackend"}


@pytest.mark.parametrize("value", [None, "record"])
def test_no_engine_no_check(value: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "celery", None)
    with override_settings(SITEMAPKIT_CHANGES=value, TASKS={}):
        assert check_refresh_engines() == []


def test_celery_installed_passes() -> None:
    with override_settings(SITEMAPKIT_CHANGES="celery"):
        assert check_refresh_engines() == []


def test_celery_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "celery", None)
    with override_settings(SITEMAPKIT_CHANGES="celery"):
        assert check_refresh_engines() == [
            Error(
                "SITEMAPKIT_CHANGES is 'celery', but Celery is not installed: no refresh task "
                "can be sent, and each commit's records wait for build_sitemaps --changed.",
                hint="pip install 'django-sitemapkit[celery]', or set SITEMAPKIT_CHANGES to "
                "'tasks' or 'record'.",
                id="sitemapkit.E115",
            )
        ]


def test_no_tasks_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "django.tasks", None)
    monkeypatch.setitem(sys.modules, "django_tasks", None)
    with override_settings(SITEMAPKIT_CHANGES="tasks"):
        assert check_refresh_engines() == [
            Error(
                "SITEMAPKIT_CHANGES is 'tasks', but no Tasks framework is installed: no refresh "
                "task can be enqueued, and each commit's records wait for build_sitemaps "
                "--changed.",
                hint="Use Django 6.0 or later, or on Django 5.2 pip install "
                "'django-sitemapkit[tasks]' and add 'django_tasks' to INSTALLED_APPS.",
                id="sitemapkit.E116",
            )
        ]


def test_a_task_backend_that_is_not_in_tasks() -> None:
    with override_settings(
        SITEMAPKIT_CHANGES="tasks",
        SITEMAPKIT_TASK_BACKEND="workers",
        TASKS={"default": DB_BACKEND, "mail": DB_BACKEND},
    ):
        assert check_refresh_engines() == [
            Error(
                "SITEMAPKIT_CHANGES is 'tasks', and SITEMAPKIT_TASK_BACKEND is 'workers', which "
                "is not a key of TASKS ('default', 'mail').",
                hint="Set SITEMAPKIT_TASK_BACKEND to the key of the TASKS backend whose workers "
                "run the refresh, such as django-tasks-db's DatabaseBackend.",
                id="sitemapkit.E117",
            )
        ]


def test_a_backend_with_workers_passes() -> None:
    with override_settings(SITEMAPKIT_CHANGES="tasks", TASKS={"default": DB_BACKEND}):
        assert check_refresh_engines() == []


@pytest.mark.parametrize(
    ("backend", "which"),
    [
        (
            "django.tasks.backends.immediate.ImmediateBackend",
            "runs each task as it is enqueued, in the process that committed: every request "
            "that commits a change waits up to SITEMAPKIT_CHANGES_DELAY, then for the refresh",
        ),
        ("django.tasks.backends.dummy.DummyBackend", "runs no task: no refresh ever runs"),
    ],
)
def test_a_backend_without_workers_warns(backend: str, which: str) -> None:
    with override_settings(SITEMAPKIT_CHANGES="tasks", TASKS={"default": {"BACKEND": backend}}):
        assert check_refresh_engines() == [
            Warning(
                f"SITEMAPKIT_CHANGES is 'tasks', and the TASKS backend 'default' is {backend!r}, "
                f"which {which}.",
                hint="Use a backend with workers for SITEMAPKIT_TASK_BACKEND, such as "
                "django-tasks-db's DatabaseBackend (manage.py db_worker), or set "
                "SITEMAPKIT_CHANGES = 'record' and run build_sitemaps --changed.",
                id="sitemapkit.W063",
            )
        ]


def test_the_checks_are_registered() -> None:
    with (
        override_settings(SITEMAPKIT_CHANGES="tasks", SITEMAPKIT_TASK_BACKEND="workers"),
        pytest.raises(SystemCheckError) as raised,
    ):
        call_command("check")
    assert "sitemapkit.E117" in str(raised.value)
