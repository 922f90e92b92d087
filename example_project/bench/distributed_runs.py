"""The distributed cases, in the parent process: with the servers and the Celery
workers of bench/distributed_services.py running (and warm: one untimed
distributed build first), ``--runs`` pairs of full builds of the ``--build-rows``
table into the S3 bucket, one in a single process (``distributed-local``) and
one through the workers (``distributed-celery``), the order alternating from one
pair to the next so that a drift of the machine weighs on both alike.

The bucket is emptied before each build, and read back after it: the SHA-256 of
every object, so that each pair's two sets can be compared byte for byte (the
manifest apart: it records when it was built). bench/distributed_report.py
reports the figures gathered here.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
from collections.abc import Callable
from typing import Any

from django_sitemapkit.names import MANIFEST_FILENAME

from bench.distributed_services import Services
from bench.specs import PAIRS
from bench.table import run_by

DISTRIBUTED_CASES = run_by(PAIRS)
LOCAL, CELERY = DISTRIBUTED_CASES
#: Celery worker processes, concurrency 1 each.
WORKERS = 2
#: What a distributed build stages its pages under (distributed/staging.py).
STAGING = ".sitemapkit-staging/"
#: The manifest's fields that say when it was built, which two builds never share.
WHEN = ("built", "full_check")
Spawn = Callable[..., dict[str, Any]]


class DistributedRuns:
    """The pairs of builds, by ``spawn`` (``Benchmark.spawn``), and their figures."""

    def __init__(
        self, spawn: Spawn, log: Callable[[str], None], base_env: dict[str, str], runs: int
    ) -> None:
        self.spawn = spawn
        self.log = log
        self.base_env = base_env
        self.runs = runs

    def run(self) -> dict[str, dict[str, Any]]:
        """Each case's results in the shape of the other cases' (a ``time`` and an
        ``rss`` measure), and under ``distributed`` every run's figures."""
        pairs: list[dict[str, dict[str, Any]]] = []
        with Services(self.base_env, WORKERS, self.log) as services:
            self.log("distributed-celery: warm-up (untimed)...")
            warmup = self.build(services, CELERY, hashed=False)
            for run in range(self.runs):
                order = DISTRIBUTED_CASES if run % 2 == 0 else DISTRIBUTED_CASES[::-1]
                pair = {}
                for name in order:
                    self.log(f"{name}: run {run + 1} of {self.runs}...")
                    pair[name] = self.build(services, name, hashed=True)
                pair[LOCAL]["first"] = order[0] == LOCAL
                pair[CELERY]["first"] = order[0] == CELERY
                pair[CELERY]["same_bytes"] = compare(pair[LOCAL], pair[CELERY])
                pairs.append(pair)
                self.log(f"distributed, run {run + 1}: {same_line(pair[CELERY]['same_bytes'])}")
            services_memory = services.peak_memory()
        details = {
            "workers": WORKERS,
            "warmup": warmup,
            "pairs": pairs,
            "services_peak_rss": services_memory,
        }
        return {
            name: {**summarize([pair[name] for pair in pairs]), "distributed": details}
            for name in DISTRIBUTED_CASES
        }

    def build(self, services: Services, name: str, hashed: bool) -> dict[str, Any]:
        """One build in a child process, into the emptied bucket, and what it left there."""
        services.empty_bucket()
        load = os.getloadavg()[0]
        result = self.spawn(f"--child={name}", env=services.environment)
        result["load_before"] = load
        result["load_after"] = os.getloadavg()[0]
        keys = services.keys()
        result["leftovers"] = [key for key in keys if key.startswith(STAGING)]
        if hashed:
            result["objects"] = services.digests()
            manifest = json.loads(services.read(MANIFEST_FILENAME))
            result["manifest_digest"] = hashlib.sha256(
                json.dumps({k: v for k, v in manifest.items() if k not in WHEN}).encode()
            ).hexdigest()
        else:
            result["objects_count"] = len(keys)
        return result


def compare(local: dict[str, Any], distributed: dict[str, Any]) -> dict[str, Any]:
    """Whether the two builds left the same objects, byte for byte, and which differ."""
    ours, theirs = (
        {key: digest for key, digest in result["objects"].items() if key != MANIFEST_FILENAME}
        for result in (local, distributed)
    )
    differing = sorted(key for key in ours.keys() & theirs.keys() if ours[key] != theirs[key])
    return {
        "objects": len(ours),
        "identical": ours == theirs,
        "only_local": sorted(ours.keys() - theirs.keys()),
        "only_distributed": sorted(theirs.keys() - ours.keys()),
        "differing": differing,
        "manifest_identical_but_when": local["manifest_digest"] == distributed["manifest_digest"],
    }


def same_line(same: dict[str, Any]) -> str:
    if same["identical"] and same["manifest_identical_but_when"]:
        return (
            f"the distributed set is the local one byte for byte ({same['objects']:,} objects, "
            "the manifest but for when it was built)."
        )
    return (
        f"the sets DIFFER: {len(same['differing']):,} objects differ, "
        f"{len(same['only_local']):,} only local, {len(same['only_distributed']):,} only "
        f"distributed; manifest equal but for when: {same['manifest_identical_but_when']}."
    )


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One case's runs in the shape of the other cases' results (Report.row())."""
    seconds = [result["seconds"] for result in runs]
    first = runs[0]
    return {
        "time": {
            "seconds": seconds,
            "median": statistics.median(seconds),
            "min": min(seconds),
            "ttfb": [None] * len(seconds),
            "ttfb_median": None,
            "bytes_per_run": [result["xml_bytes"] for result in runs],
            "warmup": {
                "urls": first["urls"],
                "bytes": first["xml_bytes"],
                "files": first["files"],
                "gzip_bytes": first["gzip_bytes"],
                "digest": None,
                "locs_digest": None,
            },
            "steps": {},
        },
        "rss": {
            "baseline": statistics.median(result["rss"]["baseline"] for result in runs),
            "peak_before": statistics.median(result["rss"]["peak_before"] for result in runs),
            "peak": statistics.median(result["rss"]["peak"] for result in runs),
            "extra": statistics.median(
                max(result["rss"]["peak"] - result["rss"]["baseline"], 0) for result in runs
            ),
            # The workers are no children of the coordinator: see the distributed table.
            "children_peak": 0,
        },
    }
