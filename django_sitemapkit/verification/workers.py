"""Batches of URLs requested here, or in ``--jobs`` forked processes; their results
handed back in the order the batches were sent.

A view runs under the GIL: threads would take turns at it, so ``--jobs``
runs processes (each with its own database connections, as the build's
``--jobs`` does). Each process requests one URL at a time, each in its own
rolled-back transactions under its deadline (``requester.py``), and sends
back each URL's result as it has it. Only a few batches are in flight at
once, so the URLs waiting are bounded too.

A process that sends nothing for a URL's deadline and ``GRACE`` more (a view
blocked in C code, which no signal interrupts) is killed: that URL is a
``timeout``, and a new process takes the rest of its batch. One that dies
(a view that ends the process) is replaced the same way. Nothing waits
longer than that for a process; the URL of one that dies is ``exited``.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext, ForkProcess
from typing import NamedTuple

from django.db import connections

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.robots_txt import TIMEOUT as ROBOTS_TIMEOUT
from django_sitemapkit.verification.containment import take_mail
from django_sitemapkit.verification.inspection import SiteFacts, inspected
from django_sitemapkit.verification.reasons import EXITED, TIMEOUT, Reason, reason
from django_sitemapkit.verification.requester import Requester

#: URLs sent to a process at once: enough to make the hand-over cheap, few
#: enough for the progress bar to move.
BATCH_URLS = 50
#: Batches in flight per process.
AHEAD = 4
#: Seconds past a URL's deadline before its process is killed: the process's own
#: deadline comes first, and a new process loads its middleware and robots.txt.
GRACE = 5.0
# One requester per site in each process: its middleware is loaded once.
_requesters: dict[str, tuple[Requester, SiteFacts]] = {}


class Batch(NamedTuple):
    section: str
    urls: list[str]


class Done(NamedTuple):
    """A batch's URLs that have problems, each with its reasons, and the e-mail
    messages its views sent (held, never delivered)."""

    section: str
    requested: int
    problems: list[tuple[str, list[Reason]]]
    mails: int = 0


Checked = tuple[list[Reason], int]


def checked(site: SitemapSite, url: str, timeout: float) -> Checked:
    """The reasons of ``url`` on ``site``, and the messages its view sent."""
    if site.name not in _requesters:
        requester = Requester(site, timeout)
        _requesters[site.name] = (requester, SiteFacts.found(site, requester))
    requester, facts = _requesters[site.name]
    return inspected(url, requester.get(url), facts), take_mail()


def requested(site: SitemapSite, batch: Batch, timeout: float) -> Done:
    """Request every URL of ``batch`` on ``site``, in this process."""
    job = Job(batch)
    for url in batch.urls:
        job.add(url, *checked(site, url, timeout))
    return job.finished


def serve(connection: Connection, site: SitemapSite, timeout: float) -> None:
    """A process's work: each list of URLs it is sent, one result per URL sent back."""
    while (urls := connection.recv()) is not None:
        for url in urls:
            connection.send(checked(site, url, timeout))


@dataclass
class Job:
    """A batch, and what is known of it so far."""

    batch: Batch
    #: How many of its URLs have a result.
    answered: int = 0
    problems: list[tuple[str, list[Reason]]] = field(default_factory=list)
    mails: int = 0

    @property
    def done(self) -> bool:
        return self.answered == len(self.batch.urls)

    @property
    def rest(self) -> list[str]:
        return self.batch.urls[self.answered :]

    def add(self, url: str, reasons: list[Reason], mails: int) -> None:
        self.answered += 1
        self.mails += mails
        if reasons:
            self.problems.append((url, reasons))

    @property
    def finished(self) -> Done:
        return Done(self.batch.section, len(self.batch.urls), self.problems, self.mails)


def ended(code: int | None) -> str:
    """How a process ended, from its exit code (a signal's is negative)."""
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"its process was killed by {name}"
    return f"its process ended (exit status {code})"


class Worker:
    """One forked process, and the job it is on."""

    def __init__(self, context: ForkContext, site: SitemapSite, timeout: float) -> None:
        # Forked processes must not share this one's connections (build/render.py):
        # closed before each fork, this one opens new ones when it next reads.
        connections.close_all()
        self.connection, child = context.Pipe()
        self.process: ForkProcess = context.Process(
            target=serve, args=(child, site, timeout), daemon=True
        )
        self.process.start()
        child.close()
        self.job: Job | None = None
        self.fresh = True
        #: When the result of the URL it is on is due, by ``time.monotonic()``.
        self.due = 0.0

    def start(self, job: Job, allowed: float) -> None:
        self.job = job
        # A new process reads the site's robots.txt before its first URL, for as long
        # as that read may take.
        setup = ROBOTS_TIMEOUT if self.fresh else 0.0
        self.fresh = False
        self.due = time.monotonic() + allowed + setup
        self.connection.send(job.rest)

    def stop(self, kill: bool) -> None:
        if not kill:
            try:
                self.connection.send(None)
            except OSError:
                kill = True
            self.process.join(GRACE)
        if kill or self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


class Requests:
    """Sends batches to be requested and gives back what was found, in order."""

    def __init__(self, site: SitemapSite, jobs: int, timeout: float | None = None) -> None:
        self.site = site
        #: Seconds a view may run: ``--timeout``, else ``SITEMAPKIT_VERIFY_TIMEOUT``.
        self.timeout: float = conf.VERIFY_TIMEOUT if timeout is None else timeout
        self.allowed = self.timeout + GRACE
        self.waiting: deque[Job] = deque()
        self.queued: deque[Job] = deque()
        self.ahead = jobs * AHEAD
        self.context = multiprocessing.get_context("fork")
        self.workers = [self.worker() for _ in range(jobs)] if jobs > 1 else []

    def worker(self) -> Worker:
        return Worker(self.context, self.site, self.timeout)

    def send(self, batch: Batch) -> Iterator[Done]:
        """Request ``batch``; what is done by now, in order."""
        if not self.workers:
            yield requested(self.site, batch, self.timeout)
            return
        job = Job(batch)
        self.waiting.append(job)
        self.queued.append(job)
        self.assign()
        while len(self.waiting) > self.ahead:
            self.step()
        yield from self.ready()

    def rest(self) -> Iterator[Done]:
        """What is still to come, in order."""
        while self.waiting:
            self.step()
            yield from self.ready()

    def ready(self) -> Iterator[Done]:
        while self.waiting and self.waiting[0].done:
            yield self.waiting.popleft().finished

    def assign(self) -> None:
        for worker in self.workers:
            if worker.job is None and self.queued:
                worker.start(self.queued.popleft(), self.allowed)

    def step(self) -> None:
        """Wait for the next result, or the next deadline, and act on it."""
        busy = [worker for worker in self.workers if worker.job is not None]
        if not busy:
            return
        left = max(0.0, min(worker.due for worker in busy) - time.monotonic())
        ready = wait([worker.connection for worker in busy], timeout=left)
        now = time.monotonic()
        for worker in busy:
            job = worker.job
            assert job is not None
            if worker.connection in ready:
                self.received(worker, job, now)
            elif now >= worker.due:
                why = f"no answer within {self.timeout:g} s; its process was killed"
                self.replace(worker, job, reason(TIMEOUT, why))
        self.assign()

    def received(self, worker: Worker, job: Job, now: float) -> None:
        try:
            reasons, mails = worker.connection.recv()
        except (EOFError, OSError):
            worker.process.join()
            self.replace(worker, job, reason(EXITED, ended(worker.process.exitcode)))
            return
        job.add(job.rest[0], reasons, mails)
        worker.due = now + self.allowed
        if job.done:
            worker.job = None

    def replace(self, worker: Worker, job: Job, found: Reason) -> None:
        """``worker``'s URL reported with ``found``; a new process takes the rest."""
        job.add(job.rest[0], [found], 0)
        worker.stop(kill=True)
        self.workers[self.workers.index(worker)] = self.worker()
        if not job.done:
            self.queued.appendleft(job)

    def close(self) -> None:
        for worker in self.workers:
            worker.stop(kill=worker.job is not None)
        self.workers = []
        _requesters.clear()
