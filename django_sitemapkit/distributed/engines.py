"""The engines a distributed build sends its shards through, behind one small
interface: submit a job, then ask how it is going.

The adapters (``celery_engine.py``, ``tasks_engine.py``) are imported only
when a build asks for them, so a project without Celery or a Tasks backend
never imports either.
"""

from __future__ import annotations

from django_sitemapkit.distributed.status import Engine
from django_sitemapkit.exceptions import BuildError

#: The values of ``build_sitemaps --via``.
ENGINES = ("celery", "tasks")


def engine_named(name: str) -> Engine:
    if name == "celery":
        try:
            from django_sitemapkit.distributed.celery_engine import CeleryEngine
        except ImportError as exc:
            raise BuildError(
                f"--via celery needs Celery ({exc}): pip install 'django-sitemapkit[celery]'."
            ) from exc
        return CeleryEngine()
    if name == "tasks":
        try:
            from django_sitemapkit.distributed.tasks_engine import TasksEngine
        except ImportError as exc:
            raise BuildError(
                f"--via tasks needs Django's Tasks framework ({exc}): Django 6.0 or later, or "
                "on Django 5.2 pip install 'django-sitemapkit[tasks]'."
            ) from exc
        return TasksEngine()
    raise BuildError(f"No engine {name!r}; choose one of {', '.join(ENGINES)}.")
