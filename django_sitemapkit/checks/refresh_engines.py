"""System checks of the engine ``SITEMAPKIT_CHANGES`` sends its refresh task to
(docs/changes.md, "Refreshing on workers"): Celery not installed (E115), no
Tasks framework (E116), ``SITEMAPKIT_TASK_BACKEND`` not a backend of ``TASKS``
(E117), and a Tasks backend that never runs the task on a worker (W063).

The settings are read, never the engines imported: a check runs in every
``manage.py`` command, and only ``distributed/`` imports Celery or a Tasks
framework.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning

from django_sitemapkit.conf import conf

#: What ``TASKS`` is when a project does not set it (Django's default, and the backport's).
DEFAULT_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
#: Backends that run no task on a worker: by the class's name, in Django and the backport.
NOT_ON_WORKERS = {
    "ImmediateBackend": "runs each task as it is enqueued, in the process that committed: "
    "every request that commits a change waits up to SITEMAPKIT_CHANGES_DELAY, then for "
    "the refresh",
    "DummyBackend": "runs no task: no refresh ever runs",
}


def check_refresh_engines(**kwargs: Any) -> list[CheckMessage]:
    value = conf.raw("CHANGES")
    if value == "celery":
        return check_celery()
    if value == "tasks":
        return check_tasks()
    return []


def check_celery() -> list[CheckMessage]:
    if find_spec("celery") is not None:
        return []
    return [
        Error(
            "SITEMAPKIT_CHANGES is 'celery', but Celery is not installed: no refresh task "
            "can be sent, and each commit's records wait for build_sitemaps --changed.",
            hint="pip install 'django-sitemapkit[celery]', or set SITEMAPKIT_CHANGES to "
            "'tasks' or 'record'.",
            id="sitemapkit.E115",
        )
    ]


def check_tasks() -> list[CheckMessage]:
    if find_spec("django.tasks") is None and find_spec("django_tasks") is None:
        return [
            Error(
                "SITEMAPKIT_CHANGES is 'tasks', but no Tasks framework is installed: no "
                "refresh task can be enqueued, and each commit's records wait for "
                "build_sitemaps --changed.",
                hint="Use Django 6.0 or later, or on Django 5.2 pip install "
                "'django-sitemapkit[tasks]' and add 'django_tasks' to INSTALLED_APPS.",
                id="sitemapkit.E116",
            )
        ]
    backends = getattr(settings, "TASKS", DEFAULT_TASKS)
    alias = conf.raw("TASK_BACKEND")
    if not isinstance(backends, dict) or not isinstance(alias, str) or alias not in backends:
        names = ", ".join(repr(name) for name in backends) if isinstance(backends, dict) else ""
        return [
            Error(
                f"SITEMAPKIT_CHANGES is 'tasks', and SITEMAPKIT_TASK_BACKEND is {alias!r}, "
                f"which is not a key of TASKS ({names or 'none'}).",
                hint="Set SITEMAPKIT_TASK_BACKEND to the key of the TASKS backend whose "
                "workers run the refresh, such as django-tasks-db's DatabaseBackend.",
                id="sitemapkit.E117",
            )
        ]
    return check_backend_runs_on_workers(alias, backends[alias])


def check_backend_runs_on_workers(alias: str, backend: object) -> list[CheckMessage]:
    path = backend.get("BACKEND") if isinstance(backend, dict) else None
    kind = path.rpartition(".")[2] if isinstance(path, str) else ""
    if kind not in NOT_ON_WORKERS:
        return []
    return [
        Warning(
            f"SITEMAPKIT_CHANGES is 'tasks', and the TASKS backend {alias!r} is {path!r}, "
            f"which {NOT_ON_WORKERS[kind]}.",
            hint="Use a backend with workers for SITEMAPKIT_TASK_BACKEND, such as "
            "django-tasks-db's DatabaseBackend (manage.py db_worker), or set "
            "SITEMAPKIT_CHANGES = 'record' and run build_sitemaps --changed.",
            id="sitemapkit.W063",
        )
    ]
