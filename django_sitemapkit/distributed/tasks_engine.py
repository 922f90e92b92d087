"""Django's Tasks framework: the shard task, and the engine that enqueues it.

Django 6 has the framework as ``django.tasks``; on Django 5.2 it is the
``django-tasks`` backport, whose API is the same. The backend must keep
results (``supports_get_result``), like django-tasks-db's, whose workers
(``manage.py db_worker``) then render the shards. A worker that dies leaves
its shard running for ever as far as the backend knows: the coordinator sends
it again once it outlives ``SITEMAPKIT_SHARD_TIMEOUT``.
"""

from __future__ import annotations

from typing import Any

from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.status import Status
from django_sitemapkit.distributed.worker import run_shard
from django_sitemapkit.exceptions import BuildError

try:
    from django.tasks import task, task_backends
    from django.tasks.base import TaskResultStatus
except ImportError:  # Django 5.2
    from django_tasks import task, task_backends  # type: ignore[no-redef,assignment,unused-ignore]
    from django_tasks.base import (  # type: ignore[no-redef,assignment,unused-ignore]
        TaskResultStatus,
    )


@task()  # type: ignore[untyped-decorator,misc,unused-ignore]
def render_shard(payload: dict[str, Any]) -> dict[str, Any]:
    return run_shard(payload)


class TasksAttempt:
    def __init__(self, result: Any) -> None:
        self.result = result

    def status(self) -> Status:
        if not self.result.is_finished:
            try:
                self.result.refresh()
            except NotImplementedError as exc:
                raise BuildError(
                    f"The Tasks backend {self.result.backend!r} keeps no results ({exc}), so a "
                    "build cannot learn when its shards are done; use a backend that does, "
                    "such as django-tasks-db's DatabaseBackend."
                ) from exc
        status = self.result.status
        if status == TaskResultStatus.SUCCESSFUL:
            return Status("done", self.result.return_value)
        if status == TaskResultStatus.FAILED:
            return Status("failed", error=last_error(self.result))
        if status == TaskResultStatus.RUNNING:
            return Status("running")
        return Status("queued")

    def cancel(self) -> None:
        """The framework has no way to take back a task: a worker that takes it later
        finds the build over, and uploads nothing (``worker.py``)."""


def last_error(result: Any) -> str:
    """The exception a failed task ended with, as the last line of its traceback."""
    errors = getattr(result, "errors", None) or []
    if not errors:
        return "the task failed, and its backend keeps no error"
    lines = [line for line in str(errors[-1].traceback).splitlines() if line.strip()]
    return lines[-1] if lines else str(errors[-1].exception_class_path)


class TasksEngine:
    def __init__(self) -> None:
        self.alias = conf.TASK_BACKEND
        queue = conf.QUEUE
        self.label = f"Django Tasks (backend {self.alias!r}" + (
            f", queue {queue!r})" if queue else ")"
        )

    def check(self) -> None:
        try:
            task_backends[self.alias]
        except Exception as exc:
            raise BuildError(
                f"SITEMAPKIT_TASK_BACKEND is {self.alias!r}, which is no backend of TASKS "
                f"({exc}); set it to one of the keys of TASKS."
            ) from exc
        # A backend that keeps no results is refused at the first shard it has
        # not finished (TasksAttempt.status()): the immediate backend, which
        # runs each task as it is enqueued, keeps none and needs none.

    def submit(self, payload: dict[str, Any]) -> TasksAttempt:
        options: dict[str, Any] = {"backend": self.alias}
        if conf.QUEUE:
            options["queue_name"] = conf.QUEUE
        return TasksAttempt(render_shard.using(**options).enqueue(payload))
