"""The coordinator of a distributed build: it sends the plan's shards to the
workers, waits for them, and checks each result against the plan.

It renders nothing itself. What it returns is what a build on one machine
renders, so the set is put together and published by the same code
(``build/__init__.py``). A shard that fails fails the build, and nothing is
published; a shard whose worker is lost (it died, or outlived
``SITEMAPKIT_SHARD_TIMEOUT``) is sent again, up to ``SITEMAPKIT_SHARD_ATTEMPTS``
times in all; the whole build waits ``SITEMAPKIT_BUILD_DEADLINE`` at most.
"""

from __future__ import annotations

import itertools
import json
import logging
import socket
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.planning import BuildPlan, ShardJob
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.build.routes import urls_fingerprint
from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.jobs import ShardResult, ShardTask, from_result, to_payload
from django_sitemapkit.distributed.objects import MISSING, s3_bucket
from django_sitemapkit.distributed.progress import Done
from django_sitemapkit.distributed.staging import THREADS, SharedStaging
from django_sitemapkit.distributed.status import Attempt, Engine
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.sites.configured import SitemapSite

logger = logging.getLogger("django_sitemapkit")
#: Seconds between two rounds of questions to the engine that found no shard done.
POLL_EVERY = 0.25
#: The first pending shards a round asks about at least, how often a round asks
#: about more, and how many more (``asked()``).
HEAD = 16
SWEEP_EVERY = 8
ASKED_PER_ROUND = 500


@dataclass
class Tracked:
    """A shard and the attempts at it so far (the last one is the live one)."""

    task: ShardTask
    attempts: list[Attempt] = field(default_factory=list)
    #: When the live attempt was first seen running (``time.monotonic()``).
    running_since: float | None = None
    result: ShardResult | None = None
    #: The check of the result's files, once there is a result.
    checked: Future[None] | None = None


@dataclass
class Dispatch:
    """A ``Renderer`` (``build/__init__.py``) whose shards are rendered by ``engine``'s
    workers into a ``SharedStaging``."""

    engine: Engine
    site: SitemapSite
    options: BuildOptions
    progress: Callable[[Done], None] | None = None
    clock: Callable[[], float] = time.monotonic
    #: Every result, in the plan's order, once the shards are done: the report
    #: and the benchmark read where and how long each shard was rendered.
    results: list[ShardResult] = field(default_factory=list)
    #: Starts the check of a result's files (in a thread: ``check_result()``).
    check: Callable[[Tracked], Future[None]] | None = field(default=None, init=False)

    def __call__(self, plan: BuildPlan, destination: Destination) -> list[RenderedShard]:
        assert isinstance(destination, SharedStaging), destination
        if not plan.work:
            return []
        self.engine.check()
        marker = json.dumps({"build": destination.build, "coordinator": socket.gethostname()})
        published = plan.old.names() if plan.old is not None else None
        present = destination.start(marker.encode(), published)
        tracked = self.tracked(plan, destination, present)
        started = self.clock()
        with ThreadPoolExecutor(THREADS) as pool:
            self.check = lambda shard: pool.submit(check_result, destination, shard)
            try:
                for shard in tracked:
                    shard.attempts.append(self.engine.submit(to_payload(shard.task)))
                self.wait(tracked, started)
                # Each result's files were checked as it came (in threads, while
                # the other shards rendered): the first fault fails the build.
                for shard in tracked:
                    assert shard.checked is not None
                    shard.checked.result()
            except BaseException:
                for shard in tracked:
                    if shard.result is None and shard.attempts:
                        shard.attempts[-1].cancel()
                pool.shutdown(cancel_futures=True)
                raise
        self.results = [shard.result for shard in tracked if shard.result is not None]
        return [
            replace(result.rendered, stats=result.stats)
            if result.stats is not None
            else result.rendered
            for result in self.results
        ]

    def tracked(
        self, plan: BuildPlan, destination: SharedStaging, present: set[str]
    ) -> list[Tracked]:
        """A job for each shard to render. A name the plan gave it that the storage does
        not have is written in place at once, where the storage is S3 (which refuses to
        replace an object the worker did not expect: ``objects.upload()``)."""
        urls = {each.section: urls_fingerprint(each) for each in plan.plans}
        placing = s3_bucket(destination.storage) is not None
        names = {
            shard.job.number: shard.given
            for shards in plan.planned.values()
            for shard in shards
            if shard.job is not None
        }
        tracked = []
        for _, job in plan.work:
            given = [
                name if placing and not {name, name + GZIP_SUFFIX} & present else None
                for name in names[job.number]
            ]
            offered = [name for name in given if name is not None]
            destination.offered.update(offered + [name + GZIP_SUFFIX for name in offered])
            task = self.task(plan, destination, job, urls[job.section])
            tracked.append(Tracked(replace(task, names=tuple(given))))
        return tracked

    def task(
        self, plan: BuildPlan, destination: SharedStaging, job: ShardJob, urls: str
    ) -> ShardTask:
        return ShardTask(
            build=destination.build,
            site=self.site.name,
            storage=destination.alias,
            staging=destination.shared,
            job=job,
            gzip=self.options.gzip,
            validate=self.options.validate,
            section=plan.sections[job.section],
            settings=plan.settings,
            urls=urls,
        )

    def wait(self, tracked: list[Tracked], started: float) -> None:
        deadline = started + conf.BUILD_DEADLINE.total_seconds()
        pending = list(tracked)
        for round_number in itertools.count():
            now = self.clock()
            for shard in asked(pending, round_number):
                self.follow(shard, now)
            pending = [shard for shard in pending if shard.result is None]
            if self.progress is not None:
                self.progress(done(tracked, now - started))
            if not pending:
                return
            if now > deadline:
                raise BuildError(late(pending, len(tracked), self.engine.label))
            # One round per POLL_EVERY at most, even when shards finish: each
            # question costs the coordinator's CPU, which the workers share on
            # a machine of few cores, and a result seen 0.25 s later costs
            # little.
            time.sleep(max(0.0, POLL_EVERY - (self.clock() - now)))

    def follow(self, shard: Tracked, now: float) -> None:
        status = shard.attempts[-1].status()
        if status.state == "done":
            shard.result = from_result(shard.task, status.result)
            assert self.check is not None
            shard.checked = self.check(shard)
        elif status.state == "failed":
            raise BuildError(
                f"{capital(shard.task.describe())} failed on a worker of {self.engine.label}: "
                f"{sentence(status.error or 'no error was kept')}"
            )
        elif status.state == "running":
            if shard.running_since is None:
                shard.running_since = now
            elif now - shard.running_since > conf.SHARD_TIMEOUT.total_seconds():
                self.again(shard, f"still running after {conf.SHARD_TIMEOUT}")
        elif status.state == "lost":
            self.again(shard, status.error or "its worker was lost")

    def again(self, shard: Tracked, why: str) -> None:
        """Send ``shard`` again, if it has attempts left: its bytes are the same whoever
        renders it, so a worker that was only slow does no harm."""
        attempts = len(shard.attempts)
        if attempts >= conf.SHARD_ATTEMPTS:
            raise BuildError(
                f"{capital(shard.task.describe())} was sent {attempts} time(s) "
                f"(SITEMAPKIT_SHARD_ATTEMPTS) and its worker was lost each time, the last "
                f"{why}; see the workers' logs, or raise SITEMAPKIT_SHARD_TIMEOUT if shards "
                "take longer."
            )
        logger.warning("%s: %s; sent again.", capital(shard.task.describe()), why)
        shard.attempts[-1].cancel()
        shard.attempts.append(self.engine.submit(to_payload(shard.task)))
        shard.running_since = None


def asked(pending: list[Tracked], round_number: int) -> list[Tracked]:
    """The shards a round asks about. Workers take shards in the order they were sent,
    so most rounds ask only the first of those pending: twice as many as were seen
    running, ``HEAD`` at least. Every ``SWEEP_EVERY`` rounds, ``ASKED_PER_ROUND``
    more are asked too, in turn, for a shard taken out of order: with tens of
    thousands of shards, asking about all of them each round would take seconds of
    questions to the result backend, and the coordinator's CPU (measured: 13 s of
    it for 200 shards, when each round asked about all)."""
    running = sum(1 for shard in pending if shard.running_since is not None)
    head = pending[: max(HEAD, 2 * running)]
    tail = pending[len(head) :]
    if round_number % SWEEP_EVERY or not tail:
        return head
    start = round_number // SWEEP_EVERY * ASKED_PER_ROUND % len(tail)
    return head + (tail[start:] + tail[:start])[:ASKED_PER_ROUND]


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    """``text`` ending as a sentence does, so the message can go on after it."""
    return text if text.endswith((".", "!", "?")) else f"{text}."


def done(tracked: list[Tracked], elapsed: float) -> Done:
    finished = [shard.result for shard in tracked if shard.result is not None]
    urls = sum(file.urls for result in finished for file in result.rendered.files)
    return Done(len(finished), len(tracked), urls, elapsed)


def late(pending: list[Tracked], total: int, engine: str) -> str:
    waiting = sum(1 for shard in pending if shard.running_since is None)
    return (
        f"{len(pending):,} of {total:,} shards were not done after SITEMAPKIT_BUILD_DEADLINE "
        f"({conf.BUILD_DEADLINE}), {waiting:,} of them never taken by a worker, the first "
        f"{pending[0].task.describe()}: are workers of {engine} running, on this queue? "
        "Start more, or raise the deadline."
    )


def check_result(destination: SharedStaging, shard: Tracked) -> None:
    """The files ``shard``'s result names are in the storage with the very bytes it
    reports (size and SHA-256, the ``.gz``'s too): a job sent with other values, or
    anything else that wrote there, may have left others."""
    assert shard.result is not None
    worker = shard.result.worker
    for file in shard.result.rendered.files:
        placed = file.name in shard.task.names
        for name, size, sha256 in file.digests():
            found = destination.check(name, placed, size, sha256)
            stored = (destination.prefix if placed else destination.shared) + name
            if found.problem == MISSING:
                raise BuildError(
                    f"The worker {worker.host} (pid {worker.pid}) reported {name} of "
                    f"{shard.task.job.section!r} written, and {destination.label} has no "
                    f"{stored}: do the workers and the coordinator use the same storage "
                    "(SITEMAPKIT_STORAGE, STORAGES)?"
                )
            if found.problem is not None:
                raise BuildError(
                    f"{destination.label} holds {stored} of {shard.task.describe()} with other "
                    f"bytes than its worker reported: {found.problem}. Something else wrote "
                    "there since (a worker of an earlier build, or anything else that can "
                    "write to the storage); build again."
                )
