"""Batches of URLs requested here, or in ``--jobs`` forked processes; their results
handed back in the order the batches were sent.

A view runs under the GIL: threads would take turns at it, so ``--jobs``
runs processes (each with its own database connections, as the build's
``--jobs`` does). Each process requests one URL at a time, each in its own
rolled-back transactions (``requester.py``). Only a few batches are in flight
at once, so the URLs waiting are bounded too.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import NamedTuple

from django.db import connections

from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.verification.inspection import SiteFacts, inspected
from django_sitemapkit.verification.reasons import Reason
from django_sitemapkit.verification.requester import Requester

#: URLs sent to a process at once: enough to make the hand-over cheap, few
#: enough for the progress bar to move.
BATCH_URLS = 50
#: Batches in flight per process.
AHEAD = 4
# One requester per site in each process: its middleware is loaded once.
_requesters: dict[str, tuple[Requester, SiteFacts]] = {}


class Batch(NamedTuple):
    section: str
    urls: list[str]


class Done(NamedTuple):
    """A batch's URLs that have problems, each with its reasons."""

    section: str
    requested: int
    problems: list[tuple[str, list[Reason]]]


def requested(site: SitemapSite, batch: Batch) -> Done:
    """Request every URL of ``batch`` on ``site`` (in this process or a worker)."""
    if site.name not in _requesters:
        _requesters[site.name] = (Requester(site), SiteFacts.found(site))
    requester, facts = _requesters[site.name]
    problems = []
    for url in batch.urls:
        reasons = inspected(url, requester.get(url), facts)
        if reasons:
            problems.append((url, reasons))
    return Done(batch.section, len(batch.urls), problems)


def started() -> None:
    """The first task of a pool, which starts its processes."""


class Requests:
    """Sends batches to be requested and gives back what was found, in order."""

    def __init__(self, site: SitemapSite, jobs: int) -> None:
        self.site = site
        self.pool: ProcessPoolExecutor | None = None
        self.waiting: deque[Future[Done]] = deque()
        self.ahead = jobs * AHEAD
        if jobs > 1:
            # Forked processes must not share this one's connections (build/render.py):
            # closed, then every process forked at once (a pool forks them all at its
            # first task), before this one reads a page on a new connection.
            connections.close_all()
            context = multiprocessing.get_context("fork")
            self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
            self.pool.submit(started).result()

    def send(self, batch: Batch) -> Iterator[Done]:
        """Request ``batch``; what is done by now, in order."""
        if self.pool is None:
            yield requested(self.site, batch)
            return
        self.waiting.append(self.pool.submit(requested, self.site, batch))
        while self.waiting and (len(self.waiting) > self.ahead or self.waiting[0].done()):
            yield self.waiting.popleft().result()

    def rest(self) -> Iterator[Done]:
        """What is still to come, in order."""
        while self.waiting:
            yield self.waiting.popleft().result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
        _requesters.clear()
