"""The parent process of ``manage.py benchmark_sitemaps``: it seeds through a child,
runs each selected case in children of its own as the table says (``run``),
checks what each listed, and prints the report. It measures nothing itself, so
no case inherits another's memory or caches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bench import distributed_runs, fresh_runs, incremental_runs, thirdparty_runs
from bench.fresh_specs import FRESH
from bench.machine import package_revision
from bench.options import Config
from bench.report import Report
from bench.specs import MEASURED, PAIRS, STEPS, THIRDPARTY, TURNS, CaseSpec
from bench.speed_runs import SpeedRuns
from bench.speed_specs import SPEED
from bench.table import BY_NAME
from bench.turns import measure_in_turns

EXAMPLE_DIR = Path(__file__).resolve().parents[1]
MANAGE_PY = EXAMPLE_DIR / "manage.py"
SQLITE_FILE = EXAMPLE_DIR / "benchmark.sqlite3"
MEASURES = ("time", "rss", "tracemalloc")


class Benchmark:
    def __init__(self, command: BaseCommand, config: Config) -> None:
        self.command = command
        self.config = config
        self.results: dict[str, dict[str, Any]] = {}
        self.started = time.perf_counter()
        self.load_at_start = os.getloadavg()
        self.revision_at_start = package_revision()
        # One for the run: the first set of the build table is found once.
        self.fresh = fresh_runs.FreshRuns(self.spawn, self.log, config.cases, config.runs)
        # How the parent runs each kind of case (the table's ``run``); each returns
        # the results of the cases it ran, the one named and those run with it.
        self.runners: dict[str, Callable[[CaseSpec], dict[str, dict[str, Any]]]] = {
            MEASURED: lambda spec: {spec.name: self.measure(spec.name)},
            TURNS: self.in_turns,
            STEPS: lambda spec: self.incremental().run(),
            PAIRS: lambda spec: self.distributed().run(),
            THIRDPARTY: lambda spec: thirdparty_runs.run_package(
                self.spawn, self.log, spec.pair, self.config.cases, self.config.runs, MEASURES
            ),
            FRESH: lambda spec: self.fresh.run(spec),
            SPEED: SpeedRuns(self.spawn, self.log, config.cases, config.runs).run,
        }

    def log(self, message: str) -> None:
        elapsed = time.perf_counter() - self.started
        self.command.stderr.write(f"[{elapsed:6.1f} s] {message}")

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env["EXAMPLE_DATABASE"] = (
            "postgresql" if self.config.database == "postgresql" else str(SQLITE_FILE)
        )
        # Every case streams from the database, without DEBUG's query log.
        env["SITEMAPKIT_SERVE"] = "database"
        # One site, as the figures were measured on (mysite/settings.py serves two
        # unless SITEMAPKIT_BASE_URL is set); a case of several sites sets its own.
        env.setdefault("SITEMAPKIT_BASE_URL", "http://127.0.0.1:8000")
        env["DJANGO_DEBUG"] = "0"
        return env

    def spawn(self, *arguments: str, env: dict[str, str] | None = None) -> dict[str, Any]:
        """Run a child with ``arguments`` (and ``env`` added to its environment); its JSON."""
        plan = self.config.plan
        command = [
            sys.executable,
            str(MANAGE_PY),
            "benchmark_sitemaps",
            *arguments,
            f"--rows={plan.rows}",
            f"--build-rows={plan.build_rows}",
            f"--index-rows={plan.index_rows}",
        ]
        # stderr is inherited: the children's warnings and errors show as they happen.
        finished = subprocess.run(
            command,
            env={**self.environment(), **(env or {})},
            cwd=EXAMPLE_DIR,
            stdout=subprocess.PIPE,
            text=True,
            check=False,
        )
        if finished.returncode != 0:
            raise CommandError(
                f"The child process {' '.join(arguments)} failed with exit status "
                f"{finished.returncode} (its error is above)."
            )
        lines = finished.stdout.strip().splitlines()
        if not lines:
            raise CommandError(f"The child process {' '.join(arguments)} printed no result.")
        result: dict[str, Any] = json.loads(lines[-1])
        return result

    def run(self) -> None:
        config = self.config
        config.cases = thirdparty_runs.available(config.cases, self.log)
        self.prepare()
        for spec in config.specs:
            if spec.name in self.results:
                continue  # run with a case before it
            ran = self.runners[spec.run](spec)
            self.results.update(ran)
            for measured in ran:
                self.check_urls(measured)
                self.check_locations(measured)
            if spec.run != THIRDPARTY and all(BY_NAME[name].same_bytes for name in ran):
                self.check_same_bytes(list(ran))
        self.load_at_end = os.getloadavg()
        self.revision_at_end = package_revision()
        self.wall = time.perf_counter() - self.started
        report = Report(self)
        self.command.stdout.write(report.text())
        if config.json_path is not None:
            config.json_path.write_text(json.dumps(report.data(), indent=2) + "\n")
            self.log(f"Wrote {config.json_path}.")

    def prepare(self) -> None:
        """Seed the tables the selected cases read, in a child, and keep what it found."""
        config = self.config
        tables = [
            f"{rows:,} rows in {table}"
            for rows, table in (
                (config.table_rows, "bench_page"),
                (config.index_table_rows, "bench_indexpage"),
            )
            if rows
        ]
        # The verify cases read no bench table: the database is only migrated.
        seeded = " and ".join(tables) or "the database"
        self.log(f"Preparing {seeded} ({config.database})...")
        reseed = ["--reseed"] if config.reseed else []
        self.prepared = self.spawn(
            "--child=prepare",
            f"--seed-rows={config.table_rows}",
            f"--seed-index-rows={config.index_table_rows}",
            *reseed,
        )
        for key, table in (("seed", "bench_page"), ("index_seed", "bench_indexpage")):
            seed = self.prepared[key]
            if seed is not None:
                self.log(
                    f"{self.prepared['database']}: {seed['rows']:,} rows {seed['action']} "
                    f"in {table} in {seed['seconds']:.1f} s."
                )
        if self.prepared["blog_rows"] and any(spec.builds for spec in config.specs):
            raise CommandError(
                f"The benchmark database holds {self.prepared['blog_rows']:,} blog posts "
                "and categories, which build_sitemaps would build too. Use a database "
                "without them."
            )

    def measure(self, name: str) -> dict[str, Any]:
        result: dict[str, Any] = {}
        runs = self.config.runs_for(name)
        for how in MEASURES:
            plural = "" if runs == 1 else "s"
            detail = f"{runs} timed run{plural} after a warm-up" if how == "time" else "one run"
            self.log(f"{name}: {how} ({detail})...")
            result[how] = self.spawn(f"--child={name}", f"--measure={how}", f"--runs={runs}")
        return result

    def in_turns(self, spec: CaseSpec) -> dict[str, dict[str, Any]]:
        """``spec`` and the selected case of its pair (1 and 100 sites; without and with
        an exclusion), in turns."""
        names = [name for name in self.config.cases if BY_NAME[name].pair == spec.pair]
        return measure_in_turns(self.spawn, self.log, names, self.config.runs, MEASURES)

    def incremental(self) -> incremental_runs.IncrementalRuns:
        # The three steps run in order, whichever of them was named.
        return incremental_runs.IncrementalRuns(
            self.spawn, self.log, runs=self.config.runs, expected_urls=self.expected_urls
        )

    def distributed(self) -> distributed_runs.DistributedRuns:
        # Both builds, in pairs, whichever of them was named.
        return distributed_runs.DistributedRuns(
            self.spawn, self.log, self.environment(), self.config.runs
        )

    # -- what each case must have listed ---------------------------------------------

    def check_same_bytes(self, names: list[str]) -> None:
        """Fail loudly if the cases of a pair (the same host's documents, the same page
        with an exclusion that keeps nothing out) differ."""
        digests = {name: self.results[name]["time"]["warmup"]["digest"] for name in names}
        if len(set(digests.values())) > 1:
            raise CommandError(
                f"{names[-1]} wrote other bytes than {names[0]}: with the same host and "
                "rows, neither the count of configured sites nor an exclusion that keeps no "
                "row out may change the document."
            )

    def expected_urls(self, name: str) -> int:
        """The ``<url>`` entries a case writes; for the index cases, ``<sitemap>`` entries."""
        return BY_NAME[name].expects(self.config.plan, self.prepared)

    def check_urls(self, name: str) -> None:
        """Fail loudly if a case listed other URLs than the rest: its times would lie."""
        urls = self.results[name]["time"]["warmup"]["urls"]
        expected = self.expected_urls(name)
        if urls != expected:
            what = "<sitemap> entries" if BY_NAME[name].lists_sitemaps else "URLs"
            raise CommandError(f"{name} listed {urls:,} {what} where {expected:,} were expected.")

    def check_locations(self, name: str) -> None:
        """Fail loudly if a serving case listed other locations than the first one run:
        the same count of other URLs (another host, say) would pass check_urls()."""
        if not BY_NAME[name].serves_page:
            return
        first = next(case for case in self.results if BY_NAME[case].serves_page)
        digests = {
            case: self.results[case]["time"]["warmup"]["locs_digest"] for case in (first, name)
        }
        if digests[name] != digests[first]:
            raise CommandError(
                f"{name} listed other <loc> values than {first} (sorted, they hash to "
                f"{digests[name][:12]}, not {digests[first][:12]}): check that both are "
                "on the host of SITEMAPKIT_BASE_URL."
            )
