"""Measuring one case in its child process: its document read as a server would
(``Sink``), and one measure of it: times, peak RSS or the ``tracemalloc`` peak.

A case is any object with ``setup()`` and ``run(check)`` (``Case``); the table
(bench/table.py) says how each is made.
"""

from __future__ import annotations

import gc
import hashlib
import os
import re
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from django.http import HttpResponseBase, StreamingHttpResponse

from bench.server_clock import ServerClock

URL_TAG = b"<url>"
# What the index cases count instead: one per page the index lists.
SITEMAP_TAG = b"<sitemap>"
# A location as every case writes it: escaped, so never with a "<" inside.
LOC = re.compile(rb"<loc>([^<]*)</loc>")
LOC_OPENING = b"<loc>"


@dataclass
class Outcome:
    """One run of a case. ``urls``, ``digest`` and ``locs_digest`` are only computed in
    checked runs."""

    seconds: float
    bytes: int
    ttfb: float | None = None
    urls: int | None = None
    digest: str | None = None
    # The sorted <loc> values: equal for two documents that list the same
    # locations, whatever their order, whitespace or other elements.
    locs_digest: str | None = None
    files: int | None = None
    gzip_bytes: int | None = None


class Sink:
    """Consumes a document chunk by chunk, as a WSGI server would, keeping only counts."""

    def __init__(self, started: float, check: bool, tag: bytes = URL_TAG) -> None:
        self.started = started
        self.check = check
        self.tag = tag
        self.size = 0
        self.first_byte: float | None = None
        self.urls = 0
        self.hash = hashlib.sha256()
        # The end of the previous chunk, so a "<url>" split across two chunks counts.
        self.tail = b""
        self.locs: list[bytes] = []
        # From the last "<loc>" not closed yet, for a location split across chunks.
        self.pending = b""

    def take(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self.first_byte is None:
            self.first_byte = time.perf_counter() - self.started
        self.size += len(chunk)
        if self.check:
            self.hash.update(chunk)
            joined = self.tail + chunk
            self.urls += joined.count(self.tag)
            self.tail = joined[-(len(self.tag) - 1) :]
            self.take_locs(chunk)

    def take_locs(self, chunk: bytes) -> None:
        text = self.pending + chunk
        end = 0
        for match in LOC.finditer(text):
            self.locs.append(match.group(1))
            end = match.end()
        rest = text[end:]
        opened = rest.rfind(LOC_OPENING)
        self.pending = rest[opened:] if opened >= 0 else rest[-(len(LOC_OPENING) - 1) :]

    def locs_digest(self) -> str:
        return hashlib.sha256(b"\n".join(sorted(self.locs))).hexdigest()

    def outcome(self, seconds: float) -> Outcome:
        return Outcome(
            seconds=seconds,
            bytes=self.size,
            ttfb=self.first_byte,
            urls=self.urls if self.check else None,
            digest=self.hash.hexdigest() if self.check else None,
            locs_digest=self.locs_digest() if self.check else None,
        )


def streamed(response: HttpResponseBase) -> StreamingHttpResponse:
    if response.status_code != 200 or not isinstance(response, StreamingHttpResponse):
        raise RuntimeError(f"The sitemap view answered {response.status_code}, not a stream.")
    return response


class Case(Protocol):
    def setup(self) -> None:
        """What any process would have done before its first request."""

    def run(self, check: bool) -> Outcome: ...


def teardown(case: Case) -> None:
    """Undo what a case's ``setup()`` registered or wrote, if it has a ``teardown()``."""
    undo: Callable[[], None] | None = getattr(case, "teardown", None)
    if undo is not None:
        undo()


def consume(response: StreamingHttpResponse, sink: Sink) -> Outcome:
    """Read a streamed response to its end and close it, as a WSGI server would."""
    try:
        for chunk in response.streaming_content:
            sink.take(chunk)
    finally:
        response.close()
    return sink.outcome(time.perf_counter() - sink.started)


def read_whole(
    response: HttpResponseBase, sink: Sink, statuses: tuple[int, ...] = (200,)
) -> Outcome:
    """Read any answer with one of ``statuses`` to its end, as a server sends it: a
    stream chunk by chunk (and closed); anything else (a TemplateResponse rendered
    first) in one piece, whose first byte leaves only when the whole document is
    ready (a 304: its headers alone)."""
    if response.status_code not in statuses:
        response.close()
        raise RuntimeError(f"The sitemap view answered {response.status_code}.")
    if isinstance(response, StreamingHttpResponse):
        return consume(response, sink)
    try:
        render = getattr(response, "render", None)
        if render is not None:
            render()
        content: bytes = b"".join(response)  # type: ignore[arg-type]
    finally:
        response.close()
    seconds = time.perf_counter() - sink.started
    sink.take(content)
    outcome = sink.outcome(seconds)
    outcome.ttfb = seconds
    return outcome


def measure_time(case: Case, runs: int) -> dict[str, Any]:
    case.setup()
    # Untimed: fills the caches (pages of the database file, compiled
    # templates, URL templates) and checks the output.
    warmup = case.run(check=True)
    outcomes, cpu, server_cpu = [], [], []
    server = ServerClock.of_connection()
    for _ in range(runs):
        # The process's CPU time too: on a shared machine the wall time also
        # counts the other processes' turns; and the database server's, for the
        # work a case hands it (PostgreSQL's process for this connection).
        before, server_before = time.process_time(), server.seconds()
        outcomes.append(case.run(check=False))
        cpu.append(time.process_time() - before)
        server_after = server.seconds()
        if server_before is not None and server_after is not None:
            server_cpu.append(server_after - server_before)
    ttfbs = [o.ttfb for o in outcomes if o.ttfb is not None]
    # A case may also time one of its steps alone (site_cases.py: choosing the site).
    steps: Callable[[], dict[str, float]] | None = getattr(case, "steps", None)
    return {
        "seconds": [o.seconds for o in outcomes],
        "median": statistics.median(o.seconds for o in outcomes),
        "min": min(o.seconds for o in outcomes),
        "cpu": cpu,
        "cpu_median": statistics.median(cpu),
        # Process and server together, where every run's server time was read.
        "cpu_with_server": [a + b for a, b in zip(cpu, server_cpu, strict=True)]
        if len(server_cpu) == len(cpu)
        else None,
        "ttfb": [o.ttfb for o in outcomes],
        "ttfb_median": statistics.median(ttfbs) if ttfbs else None,
        "bytes_per_run": [o.bytes for o in outcomes],
        "warmup": asdict(warmup),
        "steps": steps() if steps is not None else {},
    }


PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def current_rss() -> int:
    """Resident bytes now (``ru_maxrss`` only knows the peak)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE_SIZE


def peak_rss(who: int = resource.RUSAGE_SELF) -> int:
    return resource.getrusage(who).ru_maxrss * 1024  # KiB on Linux


def measure_rss(case: Case) -> dict[str, Any]:
    case.setup()
    gc.collect()
    peak_before = peak_rss()
    baseline = current_rss()
    outcome = case.run(check=False)
    peak = peak_rss()
    return {
        "baseline": baseline,
        "peak_before": peak_before,
        "peak": peak,
        # If start-up had already peaked higher, the case did not move the
        # peak and this overstates it; peak_before tells.
        "extra": max(peak - baseline, 0),
        # --jobs workers: the largest of the worker processes.
        "children_peak": peak_rss(resource.RUSAGE_CHILDREN),
        "seconds": outcome.seconds,
    }


def measure_tracemalloc(case: Case) -> dict[str, Any]:
    case.setup()
    gc.collect()
    tracemalloc.start()
    try:
        outcome = case.run(check=False)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Much slower than the timed runs: tracing every allocation.
    return {"peak": peak, "current": current, "seconds": outcome.seconds}


MEASURES: dict[str, Callable[[Case, int], dict[str, Any]]] = {
    "time": measure_time,
    "rss": lambda case, runs: measure_rss(case),
    "tracemalloc": lambda case, runs: measure_tracemalloc(case),
}


def measure(name: str, how: str, case: Case, runs: int) -> dict[str, Any]:
    """One measure (``how``) of case ``name``, made as ``case``; its teardown after."""
    try:
        result = MEASURES[how](case, runs)
    finally:
        teardown(case)
    return {"case": name, "measure": how, **result}


def answer(view: object, request: Any, full: bool, check: bool) -> Outcome:
    """One GET of the index, timed: read to its end, or a 304 (or the run fails)."""
    started = time.perf_counter()
    response = view(request)  # type: ignore[operator]
    if full:
        return consume(streamed(response), Sink(started, check, SITEMAP_TAG))
    seconds = time.perf_counter() - started
    if response.status_code != 304:
        raise RuntimeError(
            f"The conditional GET of the index answered {response.status_code}, not 304."
        )
    sink = Sink(started, check, SITEMAP_TAG)
    sink.take(response.content)  # none: a 304 has no body
    outcome = sink.outcome(seconds)
    outcome.ttfb = seconds
    return outcome
