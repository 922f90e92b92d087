"""Imported by the Celery workers of the distributed cases (``celery -A mysite worker
-I bench.distributed_worker``), once Django is set up and before the worker forks
its pool: the benchmark's section, which no ``sitemaps.py`` registers (it exists
only in the benchmark's processes), registered as the coordinator registers it,
so that the workers can render its shards and their fingerprints match."""

from __future__ import annotations

from bench.sizes import PAGE_MAX
from bench.sources import register_bench_source

register_bench_source(PAGE_MAX)
