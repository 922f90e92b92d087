"""The build-speed cases in the parent process (the table's ``SPEED``, bench/speed_specs.py):
the builds before and after in ``--runs`` rounds whose order alternates, each in a
child of its own; the build at level 9 once; the gzip levels in one child. Each
case's figures come back in the shape of the other cases' (bench/fresh_runs.py's
``shaped()``), with its own under ``fresh``; a summary is logged as it is found.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from bench.fresh_runs import shaped
from bench.specs import CaseSpec
from bench.speed_specs import BEFORE

Spawn = Callable[..., dict[str, Any]]
PAIR = ("build-speed-before", "build-speed-after")


class SpeedRuns:
    def __init__(
        self, spawn: Spawn, log: Callable[[str], None], cases: list[str], runs: int
    ) -> None:
        self.spawn = spawn
        self.log = log
        self.cases = cases
        self.runs = runs
        #: The .gz digest of each build before, for the build at level 9 to compare.
        self.before_gz: set[str] = set()

    def run(self, spec: CaseSpec) -> dict[str, dict[str, Any]]:
        if spec.name == "gzip-levels":
            return {spec.name: self.levels(spec.name)}
        if spec.name in PAIR:
            return self.rounds()
        found = self.child(spec.name)
        same = self.before_gz == {found["gz_digest"]} if self.before_gz else None
        if same is not None:
            self.log(f"{spec.name}: the .gz bytes of every build before: {'yes' if same else 'no'}")
        return {spec.name: as_case([found], gz_of_before=same)}

    def child(self, name: str) -> dict[str, Any]:
        env = {}
        before = os.environ.get(BEFORE) or ""
        if name == PAIR[0]:
            if not before or not (Path(before) / "django_sitemapkit").is_dir():
                raise CommandError(
                    f"{name} runs the package of ${BEFORE}: set it to a checkout of the "
                    f"code before (a directory holding django_sitemapkit/), not {before!r}."
                )
            earlier = os.environ.get("PYTHONPATH")
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [before, earlier]))
        found = self.spawn(f"--child={name}", env=env)
        self.log(
            f"{name}: {found['seconds']:.2f} s, CPU {found['cpu']:.2f} s"
            + ("" if found["server_cpu"] is None else f" + server {found['server_cpu']:.2f} s")
            + f", code {found['code']}"
        )
        if name == PAIR[0] and not found["code"].startswith(str(Path(before).resolve())):
            raise CommandError(f"{name} ran the package in {found['code']}, not ${BEFORE}'s.")
        return found

    def rounds(self) -> dict[str, dict[str, Any]]:
        """Before and after, the order alternating; the same .xml bytes in every round."""
        names = [name for name in PAIR if name in self.cases]
        found: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for turn in range(self.runs):
            for name in names if turn % 2 == 0 else names[::-1]:
                self.log(f"{name}: round {turn + 1} of {self.runs}...")
                found[name].append(self.child(name))
        self.before_gz = {run["gz_digest"] for run in found.get(PAIR[0], [])}
        digests = {run["xml_digest"] for runs in found.values() for run in runs}
        if len(digests) > 1:
            raise CommandError(f"{' and '.join(names)} wrote other .xml bytes.")
        if len(names) == 2:
            ratios = [
                {
                    "wall": b["seconds"] / a["seconds"],
                    "cpu": b["cpu"] / a["cpu"],
                }
                for b, a in zip(found[PAIR[0]], found[PAIR[1]], strict=True)
            ]
            self.log(
                "before / after by round, wall: "
                + ", ".join(f"{r['wall']:.2f}" for r in ratios)
                + "; CPU: "
                + ", ".join(f"{r['cpu']:.2f}" for r in ratios)
            )
        return {name: as_case(runs) for name, runs in found.items()}

    def levels(self, name: str) -> dict[str, Any]:
        found = self.spawn(f"--child={name}", f"--runs={self.runs}")
        smallest = min(level["bytes"] for level in found["levels"].values())
        for level, figures in found["levels"].items():
            self.log(
                f"gzip level {level}: {figures['bytes']:,} bytes "
                f"({figures['bytes'] / smallest:.3f} of the smallest), "
                f"CPU {figures['cpu'] * 1000:.1f} ms"
            )
        cpu = [figures["cpu"] for figures in found["levels"].values()]
        return shaped(
            cpu, cpu, [0], [0], found["urls"], found["page_bytes"], levels=found["levels"]
        )


def as_case(runs: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    """The builds of one case as the report's table reads a case; each run under ``fresh``."""
    servers = [run["server_cpu"] for run in runs if run["server_cpu"] is not None]
    case = shaped(
        [run["seconds"] for run in runs],
        [run["cpu"] for run in runs],
        [0],
        [0],
        runs[0]["urls"],
        runs[0]["xml_bytes"],
        builds=runs,
        server_cpu_median=statistics.median(servers) if servers else None,
        **more,
    )
    # The report's table shows them: the .gz bytes are what a gzip level changes.
    case["time"]["warmup"].update(files=runs[0]["files"], gzip_bytes=runs[0]["gzip_bytes"])
    return case
