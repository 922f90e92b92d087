"""The children of the build-speed cases (bench/speed_specs.py): one full build in one
process, timed, with what it wrote; and page 1 compressed at each zlib level.

A build's CPU is this process's (its gzip thread's too) and, on PostgreSQL, the
server process's that answered it (read from ``/proc``: the server is on this
machine). The files are hashed by kind in name order, the manifest left out (it
records when it was built).
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
import time
import zlib
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import django_sitemapkit
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django_sitemapkit.names import MANIFEST_FILENAME

from bench.build_cases import remove
from bench.measuring import URL_TAG, streamed
from bench.sizes import PAGE_MAX, Plan
from bench.sources import register_bench_source, warm_process
from bench.speed_specs import LEVEL_RUNS, LEVELS

#: zlib's gzip member: what the package's deterministic gzip writes (no name, MTIME 0).
GZIP_WBITS = 16 + zlib.MAX_WBITS


def backend_cpu() -> float | None:
    """The CPU seconds of the PostgreSQL server process of this connection, so far."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (proc(5), from field 14)
    return ticks / 100


def written(directory: Path) -> dict[str, Any]:
    """Files, bytes, URLs and a digest of each kind, in name order."""
    found: dict[str, Any] = {"files": 0, "urls": 0, "xml_bytes": 0, "gzip_bytes": 0}
    digests = {"xml": hashlib.sha256(), "gz": hashlib.sha256()}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        if path.name.startswith(".") or path.name == MANIFEST_FILENAME:
            continue
        data = path.read_bytes()
        kind = "gz" if path.name.endswith(".gz") else "xml"
        digests[kind].update(path.name.encode() + b"\0" + data)
        found["files"] += 1
        found["gzip_bytes" if kind == "gz" else "xml_bytes"] += len(data)
        if kind == "xml":
            found["urls"] += data.count(URL_TAG)
    return {**found, **{f"{kind}_digest": d.hexdigest() for kind, d in digests.items()}}


def build_once(plan: Plan, runs: int, which: str) -> dict[str, Any]:
    """One ``build_sitemaps`` into a new directory, gzip on, one process."""
    register_bench_source(PAGE_MAX)
    warm_process()
    level = override_settings(SITEMAPKIT_GZIP_LEVEL=9) if which == "level-9" else nullcontext()
    directory = Path(tempfile.mkdtemp(prefix="sitemapkit-speed-"))
    try:
        with level:
            server = backend_cpu()
            cpu, started = time.process_time(), time.perf_counter()
            call_command("build_sitemaps", output=str(directory), gzip=True, jobs=1, verbosity=0)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            after = backend_cpu()
        found = written(directory)
    finally:
        remove(directory)
    return {
        "which": which,
        "code": str(Path(django_sitemapkit.__file__).resolve().parent),
        "seconds": seconds,
        "cpu": cpu,
        "server_cpu": None if server is None or after is None else after - server,
        **found,
    }


def page_bytes() -> bytes:
    """Page 1 of the build table as the package's page view writes it."""
    from django.urls import reverse
    from django_sitemapkit import views

    from bench.sources import make_request

    register_bench_source(PAGE_MAX)
    warm_process()
    request = make_request(reverse("sitemapkit:page", kwargs={"section": "bench", "page": 1}))
    response = streamed(views.page(request, section="bench", page=1))
    return b"".join(response.streaming_content)  # type: ignore[arg-type]  # bytes, sync


def gzip_levels(plan: Plan, runs: int) -> dict[str, Any]:
    """Page 1 compressed at each level, ``runs`` x LEVEL_RUNS times, the levels in turns:
    the compressed bytes and the median CPU seconds of each, as the build compresses
    (one compressor, the document fed in 64 KiB chunks)."""
    page = page_bytes()
    chunks = [page[i : i + 65_536] for i in range(0, len(page), 65_536)]
    sizes: dict[int, int] = {}
    cpu: dict[int, list[float]] = {level: [] for level in LEVELS}
    for turn in range(runs * LEVEL_RUNS):
        for level in LEVELS if turn % 2 == 0 else LEVELS[::-1]:
            started = time.process_time()
            compressor = zlib.compressobj(level, zlib.DEFLATED, GZIP_WBITS)
            size = sum(len(compressor.compress(chunk)) for chunk in chunks)
            size += len(compressor.flush())
            cpu[level].append(time.process_time() - started)
            sizes[level] = size
    return {
        "urls": page.count(URL_TAG),
        "page_bytes": len(page),
        "levels": {
            level: {"bytes": sizes[level], "cpu": statistics.median(cpu[level])} for level in LEVELS
        },
    }
