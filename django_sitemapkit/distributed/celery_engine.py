"""Celery: the shard task, registered with every Celery app of the project, and
the engine that sends shards to it.

The app registers the task (``apps.py``) when Celery is installed, so a
worker started with ``celery -A project worker`` runs shards with no more
set-up. A shard is acknowledged only once rendered (``acks_late``), and
given back to the queue if its worker process dies (``reject_on_worker_lost``),
so another worker renders it; a worker that dies whole is seen by the
coordinator instead, when the shard outlives ``SITEMAPKIT_SHARD_TIMEOUT``.
"""

from __future__ import annotations

from typing import Any

from celery import current_app, shared_task
from celery.result import AsyncResult

from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.status import Status
from django_sitemapkit.distributed.worker import run_shard
from django_sitemapkit.exceptions import BuildError

TASK_NAME = "django_sitemapkit.render_shard"
#: Failures of the worker, not of the shard: it is sent again.
LOST = {"WorkerLostError", "TimeLimitExceeded", "SoftTimeLimitExceeded", "TaskRevokedError"}


@shared_task(  # type: ignore[untyped-decorator,misc,unused-ignore]
    name=TASK_NAME, acks_late=True, reject_on_worker_lost=True, track_started=True
)
def render_shard(payload: dict[str, Any]) -> dict[str, Any]:
    return run_shard(payload)


class CeleryAttempt:
    def __init__(self, result: AsyncResult) -> None:
        self.result = result

    def status(self) -> Status:
        state = self.result.state
        if state == "SUCCESS":
            return Status("done", self.result.result)
        if state == "STARTED":
            return Status("running")
        if state == "REVOKED":
            return Status("lost", error="the task was revoked")
        if state == "FAILURE":
            exc = self.result.result
            error = f"{type(exc).__name__}: {exc}"
            return Status("lost" if type(exc).__name__ in LOST else "failed", error=error)
        return Status("queued")  # PENDING, RECEIVED, RETRY

    def cancel(self) -> None:
        self.result.revoke()


class CeleryEngine:
    def __init__(self) -> None:
        self.app = current_app._get_current_object()
        queue = conf.QUEUE
        self.label = "Celery" + (f" (queue {queue!r})" if queue else "")

    def check(self) -> None:
        broker = self.app.connection_for_write()
        try:
            broker.ensure_connection(max_retries=1, timeout=5)
        except Exception as exc:
            raise BuildError(
                f"Celery's broker {broker.as_uri()} cannot be reached ({type(exc).__name__}: "
                f"{exc}): start it, or load the project's Celery app (CELERY_BROKER_URL) before "
                "build_sitemaps runs, as its __init__.py usually does."
            ) from exc
        finally:
            broker.release()

    def submit(self, payload: dict[str, Any]) -> CeleryAttempt:
        options: dict[str, Any] = {
            # The worker stops a shard that outlives it, as the coordinator does.
            "time_limit": conf.SHARD_TIMEOUT.total_seconds(),
        }
        if conf.QUEUE:
            options["queue"] = conf.QUEUE
        return CeleryAttempt(render_shard.apply_async(args=[payload], **options))
