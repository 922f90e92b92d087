"""``manage.py benchmark_sitemaps``: django.contrib.sitemaps, this package and two
floors, timed and weighed on the same rows, one child process per measurement;
and, when asked for, this package's drop-in for contrib's views over the same
``Sitemap`` classes (and those classes registered, built and served from the files),
both sitemap indexes over a table of millions of rows, this package's index
and a page with 1 and with 100 configured sites, three builds in a row into one
directory (the incremental steps: what a build rewrites, and in how long), and
builds into S3 from one process and through Celery's workers (the distributed
cases: what distributing costs and gains).

The parent process only starts children and prints; each child runs one case
with one measure (``time``, ``rss`` or ``tracemalloc``) and prints one JSON
line on stdout, so no case inherits another's memory or caches.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import django
import django_sitemapkit
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError, connection

from bench import (
    cases,
    distributed_report,
    distributed_runs,
    distributed_services,
    incremental_cases,
    incremental_report,
    incremental_runs,
)
from bench.cases import (
    BUILD_CASES,
    CASES,
    COMPAT_CASES,
    COMPAT_ONLY,
    DEFAULT_CASES,
    DISTRIBUTED_CASES,
    INCREMENTAL_CASES,
    INDEX_CASES,
    PAGE_MAX,
    SERVING_CASES,
    SITE_CASES,
    TABLE_CASES,
    Plan,
)
from bench.models import IndexPage, Page

EXAMPLE_DIR = Path(__file__).resolve().parents[3]
MANAGE_PY = EXAMPLE_DIR / "manage.py"
SQLITE_FILE = EXAMPLE_DIR / "benchmark.sqlite3"
MEASURES = ("time", "rss", "tracemalloc")
MIB = 1024 * 1024
# The cases of django_sitemapkit.compat's view.
DROPIN_CASES = ("dropin-generic", "dropin-class")
# The page built from the contrib class registered with django_sitemapkit.compat.register().
FILES_CASES = ("files-page",)
# What a ratio's label names, and the column of Report.row() it divides.
RATIO_MEASURES = {
    "time": "median_s",
    "extra RSS": "extra_rss_mib",
    "tracemalloc peak": "tracemalloc_mib",
}
# The site cases' pairs, each measured with 1 and with 100 sites.
SITE_PAIRS = tuple(dict.fromkeys(name.rsplit("-", 1)[0] for name in SITE_CASES))
# Names that --cases expands to several cases.
CASE_GROUPS = {
    "default": DEFAULT_CASES,
    "compat": COMPAT_CASES,
    "index": INDEX_CASES,
    "sites": SITE_CASES,
    "incremental": INCREMENTAL_CASES,
    "distributed": DISTRIBUTED_CASES,
    "all": CASES,
}
# Children per site case for the time measure, in turns with its pair (see
# Benchmark.measure_in_turns()).
TURNS = 3


def positive_int(value: str) -> int:
    try:
        number = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return number


def whole_number(value: str) -> int:
    """0 or more (the children's --seed-rows: 0 leaves a table as it is)."""
    return 0 if value.strip() == "0" else positive_int(value)


def case_list(value: str) -> list[str]:
    given = [name.strip() for name in value.split(",") if name.strip()]
    names = [name for item in given for name in CASE_GROUPS.get(item, (item,))]
    unknown = [name for name in names if name not in CASES]
    if unknown or not names:
        problem = f"unknown case {unknown[0]!r}" if unknown else "no case given"
        choices = ", ".join([*CASES, *CASE_GROUPS])
        raise argparse.ArgumentTypeError(f"{problem}; choose from {choices}")
    # Always in the canonical order: the URL-count check of the first cases
    # fails a bad run before the long build cases start.
    return [name for name in CASES if name in names]


@dataclass
class Config:
    plan: Plan
    cases: list[str]
    runs: int
    build_runs: int
    database: str
    reseed: bool
    json_path: Path | None

    def runs_for(self, name: str) -> int:
        return self.build_runs if name in BUILD_CASES else self.runs

    @property
    def table_rows(self) -> int:
        """Rows the selected cases need in ``bench_page``: the serving page, or the
        whole build table; 0 if none of them reads it (it is then left as it is)."""
        reading = {*SERVING_CASES, *SITE_CASES}
        needed = [self.plan.rows] if set(self.cases) & reading else []
        if set(self.cases) & set(TABLE_CASES):
            needed.append(self.plan.build_rows)
        return max(needed, default=0)

    @property
    def index_table_rows(self) -> int:
        """Rows the index cases need in ``bench_indexpage``; 0 if none was selected."""
        return self.plan.index_rows if set(self.cases) & set(INDEX_CASES) else 0


class Command(BaseCommand):
    help = (
        "Time and weigh django.contrib.sitemaps, django_sitemapkit's views (its "
        "drop-in for contrib's too) and build_sitemaps, and two hand-written floors, "
        "on the same rows."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rows",
            type=positive_int,
            default=PAGE_MAX,
            help="rows for the serving cases; their page holds min(rows, 50,000) URLs "
            "(default 50,000)",
        )
        parser.add_argument(
            "--build-rows",
            type=positive_int,
            default=1_000_000,
            help="rows for the build cases and ours-page-1/ours-page-20 (default 1,000,000)",
        )
        parser.add_argument(
            "--index-rows",
            type=positive_int,
            default=10_000_000,
            help="rows for the index cases (contrib-index, index-full, index-304), in a "
            "table of their own (default 10,000,000)",
        )
        parser.add_argument(
            "--runs",
            type=positive_int,
            default=5,
            help=f"timed runs per serving case (default 5); the sites cases run them in "
            f"each of {TURNS} child processes; runs of the three incremental steps; pairs "
            "of distributed builds",
        )
        parser.add_argument(
            "--build-runs",
            type=positive_int,
            default=3,
            help="timed runs per build case (default 3)",
        )
        parser.add_argument(
            "--cases",
            type=case_list,
            default=list(DEFAULT_CASES),
            metavar="A,B,...",
            help=f"cases to run: {', '.join(CASES)}; or the groups 'default' (all but "
            "the index, sites and compat-only cases, the default), 'compat' "
            "(contrib's sitemap view and django_sitemapkit.compat's over the same Sitemap "
            "classes, those classes "
            "registered with compat.register(), built and served from the files, ours "
            "and build-gzip), "
            "'index' (the three index cases), 'sites' (the index and a page with 1 and "
            "with 100 sites, by SITEMAPKIT_SITES as a dict and as 'django.contrib.sites', "
            "1 and 100 in turns), 'incremental' (build_sitemaps three times into one "
            "directory: into it empty, with nothing changed, after rows of the build "
            "table were appended, deleted and updated; --runs times), 'distributed' "
            "(the --build-rows table into an S3 bucket from one process and through 2 "
            "Celery workers, in --runs pairs; Redis, moto's S3 server and the workers "
            "started on 127.0.0.1 by the benchmark) and 'all'",
        )
        parser.add_argument(
            "--database",
            choices=("sqlite", "postgresql"),
            default="sqlite",
            help="sqlite: example_project/benchmark.sqlite3 (default); postgresql: the "
            "server and database of PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE",
        )
        parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH")
        parser.add_argument(
            "--reseed", action="store_true", help="delete and recreate the rows even if intact"
        )
        # What the parent passes to its children; not for people.
        parser.add_argument("--child", help=argparse.SUPPRESS)
        parser.add_argument("--measure", choices=MEASURES, help=argparse.SUPPRESS)
        parser.add_argument("--seed-rows", type=whole_number, help=argparse.SUPPRESS)
        parser.add_argument("--seed-index-rows", type=whole_number, help=argparse.SUPPRESS)
        parser.add_argument("--output-dir", help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["child"]:
            self.child(options)
            return
        config = Config(
            plan=plan_of(options),
            cases=options["cases"],
            runs=options["runs"],
            build_runs=options["build_runs"],
            database=options["database"],
            reseed=options["reseed"],
            json_path=Path(options["json"]) if options["json"] else None,
        )
        check_config(config)
        try:
            Benchmark(self, config).run()
        except KeyboardInterrupt:
            raise CommandError("Interrupted.", returncode=130) from None

    # -- inside a child process ------------------------------------------------------

    def child(self, options: dict[str, Any]) -> None:
        plan = plan_of(options)
        # Only the JSON line may reach stdout: whatever else is printed (a
        # command's output, a warning) goes to stderr with the logs.
        with contextlib.redirect_stdout(sys.stderr):
            if options["child"] == "prepare":
                result = prepare(
                    options["seed_rows"], options["seed_index_rows"], options["reseed"]
                )
            elif options["child"] in incremental_cases.CHILDREN:
                result = incremental_cases.run_child(
                    options["child"], options["measure"], plan, options["output_dir"]
                )
            elif options["child"] in DISTRIBUTED_CASES:
                # Loaded here only: the build's machinery, and Celery's engine.
                from bench import distributed_cases

                result = distributed_cases.run_child(options["child"])
            else:
                name = options["child"]
                result = cases.measure(
                    name, options["measure"], plan, options["runs"], module_factory(name)
                )
        self.stdout.write(json.dumps(result))


def module_factory(name: str) -> Callable[[Plan], cases.Case] | None:
    """The factory of a case of bench/compat_cases.py or bench/site_cases.py, each
    imported only for its own cases: they load django.contrib.sitemaps and
    django.contrib.sites, which no other case needs."""
    if name in COMPAT_ONLY:
        from bench import compat_cases

        maker = compat_cases.MAKERS[name]
    elif name in SITE_CASES:
        from bench import site_cases

        maker = site_cases.MAKERS[name]
    else:
        return None
    return lambda plan: maker(plan.serve_size)


def plan_of(options: dict[str, Any]) -> Plan:
    return Plan(
        rows=options["rows"], build_rows=options["build_rows"], index_rows=options["index_rows"]
    )


def check_config(config: Config) -> None:
    selected = set(config.cases)
    both = selected & set(TABLE_CASES) and selected & set(SERVING_CASES)
    if both and config.plan.rows > config.plan.build_rows:
        raise CommandError(
            "--rows is larger than --build-rows: the build cases would cover more "
            "rows than asked. Lower --rows or raise --build-rows."
        )
    minimum = incremental_cases.MIN_ROWS
    if selected & set(INCREMENTAL_CASES) and config.plan.build_rows < minimum:
        raise CommandError(
            f"--build-rows {config.plan.build_rows:,} is too few for the incremental cases, "
            f"whose changes need {minimum:,} rows or more. Raise --build-rows."
        )
    if config.database == "postgresql":
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise CommandError(
                "--database postgresql needs psycopg: pip install 'psycopg[binary]'."
            ) from None
    if selected & set(DISTRIBUTED_CASES):
        check_distributed()
    if config.json_path is not None and not config.json_path.parent.is_dir():
        raise CommandError(f"--json: no directory {config.json_path.parent}.")


def check_distributed() -> None:
    """What the distributed cases start and import, there before anything is seeded."""
    if not os.access(distributed_services.REDIS_SERVER, os.X_OK):
        raise CommandError(
            f"The distributed cases start Redis, {distributed_services.REDIS_SERVER}, which is "
            "not here: apt-get install redis-server."
        )
    missing = [
        name for name in ("celery", "redis", "boto3", "storages", "moto") if not find_spec(name)
    ]
    if missing:
        raise CommandError(
            f"The distributed cases need {', '.join(missing)}: pip install 'celery[redis]' "
            "'django-storages[s3]' 'moto[server]'."
        )


def prepare(seed_rows: int, index_rows: int, reseed: bool) -> dict[str, Any]:
    """Migrate and seed the benchmark database; say what else it holds.

    A table whose row count is 0 here is left as it is: no selected case reads it.
    """
    try:
        connection.ensure_connection()
    except DatabaseError as exc:
        raise CommandError(
            f"Cannot connect to the benchmark database ({describe_db()}): {exc}"
        ) from exc
    call_command("migrate", verbosity=0, interactive=False)
    seeds: dict[str, dict[str, Any] | None] = {}
    for key, model, rows in (("seed", Page, seed_rows), ("index_seed", IndexPage, index_rows)):
        if rows:
            report = cases.ensure_rows(rows, reseed, model)
            seeds[key] = {"rows": report.rows, "action": report.action, "seconds": report.seconds}
        else:
            seeds[key] = None
    from django_sitemapkit import registry
    from django_sitemapkit.sources.plan import compile_plan

    # The example's other sections (its static pages, the registered contrib
    # class): build_sitemaps writes them too, and the index lists their pages.
    # No bench section is registered here.
    sections = registry.sections()
    counts = [compile_plan(source).pager.count() for source in sections]
    # The sites cases' requested site is named by its host, which no section's
    # ``sites`` names: it lists only the sections listed on every site.
    everywhere = [c for source, c in zip(sections, counts, strict=True) if source.sites is None]
    return {
        "database": describe_db(),
        "database_version": cases.database_version(),
        **seeds,
        "blog_rows": cases.blog_rows(),
        "other_urls": sum(counts),
        # At the default 50,000 URLs a page.
        "other_pages": sum(-(-count // 50_000) for count in counts),
        "other_pages_everywhere": sum(-(-count // 50_000) for count in everywhere),
    }


def describe_db() -> str:
    params = connection.settings_dict
    if connection.vendor == "postgresql":
        return f"PostgreSQL {params['USER']}@{params['HOST']}:{params['PORT']}/{params['NAME']}"
    return f"SQLite {params['NAME']}"


# -- the parent process ----------------------------------------------------------------


class Benchmark:
    def __init__(self, command: Command, config: Config) -> None:
        self.command = command
        self.config = config
        self.results: dict[str, dict[str, Any]] = {}
        self.started = time.perf_counter()
        self.load_at_start = os.getloadavg()
        self.revision_at_start = package_revision()

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
        tables = [
            f"{rows:,} rows in {table}"
            for rows, table in (
                (config.table_rows, "bench_page"),
                (config.index_table_rows, "bench_indexpage"),
            )
            if rows
        ]
        self.log(f"Preparing {' and '.join(tables)} ({config.database})...")
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
        if self.prepared["blog_rows"] and set(config.cases) & {*BUILD_CASES, *INCREMENTAL_CASES}:
            raise CommandError(
                f"The benchmark database holds {self.prepared['blog_rows']:,} blog posts "
                "and categories, which build_sitemaps would build too. Use a database "
                "without them."
            )
        for name in config.cases:
            if name in self.results:
                continue  # measured in turns with its pair
            if name in SITE_CASES:
                pair = [case for case in config.cases if site_pair(case) == site_pair(name)]
                self.results.update(self.measure_in_turns(pair))
            elif name in INCREMENTAL_CASES:
                # The three steps run in order, whichever of them was named.
                pair = list(INCREMENTAL_CASES)
                self.results.update(self.incremental().run())
            elif name in DISTRIBUTED_CASES:
                # Both builds, in pairs, whichever of them was named.
                pair = list(DISTRIBUTED_CASES)
                self.results.update(
                    distributed_runs.DistributedRuns(
                        self.spawn, self.log, self.environment(), self.config.runs
                    ).run()
                )
            else:
                pair = [name]
                self.results[name] = self.measure(name)
            for measured in pair:
                self.check_urls(measured)
                self.check_locations(measured)
            self.check_same_bytes(pair)
        self.load_at_end = os.getloadavg()
        self.revision_at_end = package_revision()
        self.wall = time.perf_counter() - self.started
        report = Report(self)
        self.command.stdout.write(report.text())
        if config.json_path is not None:
            config.json_path.write_text(json.dumps(report.data(), indent=2) + "\n")
            self.log(f"Wrote {config.json_path}.")

    def measure(self, name: str) -> dict[str, Any]:
        result: dict[str, Any] = {}
        runs = self.config.runs_for(name)
        for how in MEASURES:
            plural = "" if runs == 1 else "s"
            detail = f"{runs} timed run{plural} after a warm-up" if how == "time" else "one run"
            self.log(f"{name}: {how} ({detail})...")
            result[how] = self.spawn(f"--child={name}", f"--measure={how}", f"--runs={runs}")
        return result

    def measure_in_turns(self, names: list[str]) -> dict[str, dict[str, Any]]:
        """Time the cases ``names`` (1 and 100 sites) in turns, TURNS children each, the
        order reversed every round (1, 100; 100, 1; ...) so that a drift of the
        machine's speed weighs on both alike; weigh each once."""
        runs = self.config.runs
        children: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for turn in range(TURNS):
            for name in names if turn % 2 == 0 else names[::-1]:
                self.log(f"{name}: time, round {turn + 1} of {TURNS} ({runs} timed runs)...")
                children[name].append(
                    self.spawn(f"--child={name}", "--measure=time", f"--runs={runs}")
                )
        results: dict[str, dict[str, Any]] = {}
        for name in names:
            results[name] = {"time": pooled(name, children[name])}
            for how in MEASURES[1:]:
                self.log(f"{name}: {how} (one run)...")
                results[name][how] = self.spawn(f"--child={name}", f"--measure={how}", "--runs=1")
        return results

    def incremental(self) -> incremental_runs.IncrementalRuns:
        return incremental_runs.IncrementalRuns(
            self.spawn,
            self.log,
            rows=self.config.plan.build_rows,
            runs=self.config.runs,
            other_urls=int(self.prepared["other_urls"]),
        )

    def check_same_bytes(self, names: list[str]) -> None:
        """Fail loudly if the cases of a pair (the same host's documents) differ."""
        digests = {name: self.results[name]["time"]["warmup"]["digest"] for name in names}
        if len(set(digests.values())) > 1:
            raise CommandError(
                f"{names[-1]} wrote other bytes than {names[0]}: with the same host and "
                "rows, the count of configured sites must not change the document."
            )

    def expected_urls(self, name: str) -> int:
        """The ``<url>`` entries a case writes; for the index cases, ``<sitemap>`` entries."""
        plan = self.config.plan
        if name in SERVING_CASES:
            return plan.serve_size
        if name in SITE_CASES:
            if not lists_sitemaps(name):
                return plan.serve_size
            # Bench's pages and those of the example's sections listed on every site.
            return -(-plan.rows // plan.serve_size) + int(self.prepared["other_pages_everywhere"])
        if name == "contrib-index":
            # Its sitemaps dict holds the bench section alone.
            return plan.index_pages
        if name == "index-full":
            # Every registered section: bench's pages and the example's others.
            return plan.index_pages + int(self.prepared["other_pages"])
        if name == "index-304":
            return 0  # no body
        if name in ("ours-page-1", "ours-page-20"):
            page = 1 if name == "ours-page-1" else plan.far_page
            return min(PAGE_MAX, plan.build_rows - (page - 1) * PAGE_MAX)
        if name == "build-floor":
            return plan.build_rows
        if name in INCREMENTAL_CASES:
            return self.incremental().expected_urls(name)
        return plan.build_rows + int(self.prepared["other_urls"])

    def check_urls(self, name: str) -> None:
        """Fail loudly if a case listed other URLs than the rest: its times would lie."""
        urls = self.results[name]["time"]["warmup"]["urls"]
        expected = self.expected_urls(name)
        if urls != expected:
            what = "<sitemap> entries" if lists_sitemaps(name) else "URLs"
            raise CommandError(f"{name} listed {urls:,} {what} where {expected:,} were expected.")

    def check_locations(self, name: str) -> None:
        """Fail loudly if a serving case listed other locations than the first one run:
        the same count of other URLs (another host, say) would pass check_urls()."""
        if name not in SERVING_CASES:
            return
        served = [case for case in self.results if case in SERVING_CASES]
        first = served[0]
        digests = {
            case: self.results[case]["time"]["warmup"]["locs_digest"] for case in (first, name)
        }
        if digests[name] != digests[first]:
            raise CommandError(
                f"{name} listed other <loc> values than {first} (sorted, they hash to "
                f"{digests[name][:12]}, not {digests[first][:12]}): check that both are "
                "on the host of SITEMAPKIT_BASE_URL."
            )


def site_pair(name: str) -> str:
    """What the two cases of a pair share: ``sites-dict-page`` for ``sites-dict-page-100``."""
    return name.rsplit("-", 1)[0]


def lists_sitemaps(name: str) -> bool:
    """Whether a case writes an index (it counts ``<sitemap>`` entries, not URLs)."""
    return name in INDEX_CASES or (name in SITE_CASES and "-index-" in name)


def pooled(name: str, children: list[dict[str, Any]]) -> dict[str, Any]:
    """One time measure of several children's: each of their timed runs counts once."""
    digests = {child["warmup"]["digest"] for child in children}
    if len(digests) > 1:
        raise CommandError(f"{name} wrote other bytes in one of its child processes.")
    seconds = [value for child in children for value in child["seconds"]]
    ttfbs = [value for child in children for value in child["ttfb"]]
    known = [value for value in ttfbs if value is not None]
    return {
        **children[0],
        "seconds": seconds,
        "median": statistics.median(seconds),
        "min": min(seconds),
        "ttfb": ttfbs,
        "ttfb_median": statistics.median(known) if known else None,
        "bytes_per_run": [value for child in children for value in child["bytes_per_run"]],
        "child_medians": [child["median"] for child in children],
        "steps": {
            step: statistics.median(child["steps"][step] for child in children)
            for step in children[0]["steps"]
        },
    }


# -- the report ------------------------------------------------------------------------


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


class Report:
    """The table, the ratios and the machine, as text and as JSON."""

    def __init__(self, benchmark: Benchmark) -> None:
        self.benchmark = benchmark
        self.config = benchmark.config
        self.results = benchmark.results

    def label(self, name: str) -> str:
        if name == "ours-page-20" and self.config.plan.far_page != 20:
            return f"ours-page-{self.config.plan.far_page}"
        return name

    def row(self, name: str) -> dict[str, Any]:
        """One case's figures, in seconds, MiB and counts."""
        timed = self.results[name]["time"]
        rss = self.results[name]["rss"]
        # --jobs builds in worker processes: their peak is the one that matters,
        # and tracemalloc cannot see into them.
        in_workers = name == "build-jobs2"
        peak = max(rss["peak"], rss["children_peak"]) if in_workers else rss["peak"]
        # The distributed cases are not traced (their work is in other processes).
        traced = self.results[name].get("tracemalloc")
        warmup = timed["warmup"]
        return {
            "case": self.label(name),
            "median_s": timed["median"],
            "min_s": timed["min"],
            "ttfb_s": timed["ttfb_median"],
            "tracemalloc_mib": None if in_workers or traced is None else traced["peak"] / MIB,
            "max_rss_mib": peak / MIB,
            "extra_rss_mib": max(peak - rss["baseline"], 0) / MIB,
            "urls": warmup["urls"],
            "bytes": warmup["bytes"],
            "files": warmup["files"],
            "gzip_bytes": warmup["gzip_bytes"],
        }

    def ratios(self) -> dict[str, float | None]:
        rows = {name: self.row(name) for name in self.results}

        def of(name: str, key: str) -> float | None:
            return rows[name][key] if name in rows else None

        def versus(
            numerator: str, denominator: str, what: str = "time"
        ) -> tuple[str, tuple[float | None, float | None]]:
            key = RATIO_MEASURES[what]
            label = f"{self.label(numerator)} / {self.label(denominator)}, {what}"
            return label, (of(numerator, key), of(denominator, key))

        pairs: dict[str, tuple[float | None, float | None]] = dict(
            [
                versus("contrib", "ours"),
                versus("contrib", "ours", "extra RSS"),
                versus("contrib", "ours", "tracemalloc peak"),
                # The drop-in against contrib's view, over the same sitemaps dict.
                versus("contrib", "dropin-generic"),
                versus("contrib", "dropin-generic", "extra RSS"),
                versus("contrib", "dropin-generic", "tracemalloc peak"),
                versus("contrib-class", "dropin-class"),
                versus("contrib-class", "dropin-class", "extra RSS"),
                versus("contrib-class", "dropin-class", "tracemalloc peak"),
                # What declaring a source gains over keeping the Sitemap classes.
                versus("contrib-class", "ours"),
                versus("dropin-generic", "ours"),
                versus("dropin-generic", "ours", "tracemalloc peak"),
                versus("dropin-class", "ours"),
                versus("dropin-class", "ours", "tracemalloc peak"),
                # Step 2: the classes registered, built, and a page served from the files.
                versus("contrib", "files-page"),
                versus("contrib-class", "files-page"),
                versus("ours", "orm-floor"),
                versus("ours", "cursor-floor"),
                versus("ours-regex", "ours"),
                ("ours, TTFB / total", (of("ours", "ttfb_s"), of("ours", "median_s"))),
                versus("ours-page-20", "ours-page-1"),
                versus("build-gzip", "build-floor"),
                versus("build-nogzip", "build-floor"),
                versus("build-registered", "build-gzip"),
                versus("build-jobs2", "build-gzip"),
                versus("index-full", "contrib-index"),
                versus("index-full", "contrib-index", "extra RSS"),
                versus("index-304", "index-full"),
                # The incremental steps: a second build, and one after a few changes.
                versus("incremental-changed", "incremental-full"),
                versus("incremental-unchanged", "incremental-full"),
                # A build from one process against the same build through the workers.
                versus("distributed-local", "distributed-celery"),
                # Several sites: the same host's document with 100 sites and with 1.
                *(versus(f"{pair}-100", f"{pair}-1") for pair in SITE_PAIRS),
            ]
        )
        return {label: ratio(*pair) for label, pair in pairs.items()}

    def turn_ratios(self) -> dict[str, list[float]]:
        """Each site pair's 100 / 1 ratio in each round: of the medians of its two
        children, run one after the other."""
        found = {}
        for pair in SITE_PAIRS:
            one, hundred = (self.results.get(f"{pair}-{count}") for count in (1, 100))
            if one is not None and hundred is not None:
                medians = zip(
                    one["time"]["child_medians"], hundred["time"]["child_medians"], strict=True
                )
                found[pair] = [b / a for a, b in medians]
        return found

    def lookups(self) -> dict[str, dict[int, float]]:
        """Each site pair's ``site_for_request()`` alone, in seconds, by count of sites."""
        found: dict[str, dict[int, float]] = {}
        for pair in SITE_PAIRS:
            for count in (1, 100):
                result = self.results.get(f"{pair}-{count}")
                if result is not None:
                    found.setdefault(pair, {})[count] = result["time"]["steps"]["lookup"]
        return found

    def same_bytes(
        self, names: tuple[str, ...] = ("ours-regex", "orm-floor", "cursor-floor")
    ) -> dict[str, bool]:
        """Whether each of ``names`` (by default each floor, and ours-regex) wrote exactly
        the bytes of the package's view."""
        digests = {name: self.results[name]["time"]["warmup"]["digest"] for name in self.results}
        ours = digests.get("ours")
        return {
            name: digests[name] == ours for name in names if name in digests and ours is not None
        }

    def machine(self) -> dict[str, Any]:
        return {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "django": django.get_version(),
            "django_sitemapkit": self.benchmark.revision_at_start,
            "database": self.benchmark.prepared["database_version"],
            "platform": platform.platform(),
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "load_average_start": self.benchmark.load_at_start[0],
            "load_average_end": self.benchmark.load_at_end[0],
        }

    def data(self) -> dict[str, Any]:
        plan = self.config.plan
        return {
            "options": {
                "rows": plan.rows,
                "build_rows": plan.build_rows,
                "index_rows": plan.index_rows,
                "index_pages": plan.index_pages,
                "serve_page_urls": plan.serve_size,
                "far_page": plan.far_page,
                "runs": self.config.runs,
                "build_runs": self.config.build_runs,
                "cases": self.config.cases,
                "database": self.config.database,
            },
            "machine": self.machine(),
            "prepare": self.benchmark.prepared,
            "table": [self.row(name) for name in self.results],
            "ratios": self.ratios(),
            "site_ratios_by_round": self.turn_ratios(),
            "site_lookup_seconds": self.lookups(),
            "incremental": incremental_report.summary(self.results),
            "distributed": distributed_report.summary(self.results),
            "floor_bytes_identical_to_ours": self.same_bytes(),
            # Not required of them (their values are contrib's), but expected here: the
            # drop-in writes with the package's encoder.
            "dropin_bytes_identical_to_ours": self.same_bytes(DROPIN_CASES),
            "files_bytes_identical_to_ours": self.same_bytes(FILES_CASES),
            "raw": self.results,
            "wall_seconds": self.benchmark.wall,
        }

    def text(self) -> str:
        lines = [table([self.row(name) for name in self.results]), ""]
        lines += self.build_lines()
        lines += incremental_report.report_lines(
            self.results, self.config.plan.build_rows, self.config.runs
        )
        lines += distributed_report.report_lines(self.results, self.config.plan.build_rows)
        lines += self.ratio_lines()
        lines += self.notes()
        return "\n".join(lines)

    def build_lines(self) -> list[str]:
        lines = []
        for name in self.results:
            row = self.row(name)
            if row["files"] is None:
                continue
            gzip = f", {row['gzip_bytes']:,} bytes of .xml.gz" if row["gzip_bytes"] else ""
            lines.append(f"{name}: {row['files']:,} files, {row['bytes']:,} bytes of .xml{gzip}")
        return [*lines, ""] if lines else []

    def ratio_lines(self) -> list[str]:
        known = {label: value for label, value in self.ratios().items() if value is not None}
        width = max((len(label) for label in known), default=0)
        lines = ["Ratios (of medians):"] if known else []
        lines += [f"  {label.ljust(width)}  {value:6.2f}" for label, value in known.items()]
        return [*lines, ""] if lines else []

    def notes(self) -> list[str]:
        plan = self.config.plan
        prepared = self.benchmark.prepared
        seed = prepared["seed"]
        index_seed = prepared["index_seed"]
        lines = []
        compared = self.same_bytes() | self.same_bytes(DROPIN_CASES) | self.same_bytes(FILES_CASES)
        for name, same in compared.items():
            if not same:
                lines.append(f"Note: {name} did not write the same bytes as ours.")
        for pair, values in self.turn_ratios().items():
            shown = ", ".join(f"{value:.2f}" for value in values)
            lines.append(f"{pair}: 100 sites / 1 by round (children back to back): {shown}.")
        for pair, seconds in self.lookups().items():
            shown = ", ".join(
                f"{value * 1e6:,.1f} µs with {count} site{'' if count == 1 else 's'}"
                for count, value in seconds.items()
            )
            lines.append(f"{pair}: site_for_request() alone, {shown}.")
        if "build-jobs2" in self.results:
            worker = self.results["build-jobs2"]["rss"]["children_peak"] / MIB
            lines.append(
                "build-jobs2 builds in worker processes: its max RSS is the larger of its own "
                f"and its largest worker's ({worker:,.1f} MiB); tracemalloc cannot see them."
            )
        if self.benchmark.revision_at_end != self.benchmark.revision_at_start:
            lines.append(
                f"Note: django_sitemapkit changed during the run "
                f"({self.benchmark.revision_at_start} -> {self.benchmark.revision_at_end})."
            )
        if seed is not None:
            lines.append(
                f"Rows: {seed['rows']:,} in bench_page ({seed['action']}); serving page "
                f"{plan.serve_size:,} URLs."
            )
        if index_seed is not None:
            others = prepared["other_pages"]
            lines.append(
                f"Index cases: {index_seed['rows']:,} rows in bench_indexpage "
                f"({index_seed['action']}), {plan.index_pages:,} pages of 50,000; index-full "
                f"also lists the example's other sections ({others:,} "
                f"page{'' if others == 1 else 's'}); their URLs column counts <sitemap> "
                "entries (none in a 304)."
            )
        machine = self.machine()
        lines += [
            f"{self.config.runs} timed runs ({self.config.build_runs} for builds), each "
            "case after an untimed warm-up.",
            f"Machine: {machine['cpu']}, {machine['cores']} cores; Python {machine['python']}, "
            f"Django {machine['django']}, {machine['database']}; django_sitemapkit "
            f"{machine['django_sitemapkit']}; {machine['date']}; load "
            f"average {machine['load_average_start']:.2f} at start, "
            f"{machine['load_average_end']:.2f} at end.",
            f"Wall time: {self.benchmark.wall:.0f} s.",
        ]
        return lines


Column = tuple[str, str, Callable[[Any], str]]


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


COLUMNS: list[Column] = [
    ("Case", "case", str),
    ("Median s", "median_s", seconds),
    ("Min s", "min_s", seconds),
    ("TTFB s", "ttfb_s", seconds),
    ("tracemalloc MiB", "tracemalloc_mib", mib),
    ("Max RSS MiB", "max_rss_mib", mib),
    ("Extra RSS MiB", "extra_rss_mib", mib),
    ("URLs", "urls", count),
    ("Bytes", "bytes", count),
]


def table(rows: list[dict[str, Any]]) -> str:
    cells = [[title for title, _, _ in COLUMNS]]
    cells += [[show(row[key]) for _, key, show in COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        )
        for line in cells
    )


def package_revision() -> str:
    """The commit of the measured package's checkout, and whether its files differ from it.

    The package is installed editable: the benchmark measures the working tree.
    """
    root = Path(django_sitemapkit.__file__).resolve().parent
    try:
        commit = git(root, "rev-parse", "--short", "HEAD")
        changed = git(root, "status", "--porcelain", "--", ".")
    except (OSError, subprocess.CalledProcessError):
        return "(not a git checkout)"
    return f"{commit} with uncommitted changes" if changed else commit


def git(directory: Path, *arguments: str) -> str:
    finished = subprocess.run(
        ["git", "-C", str(directory), *arguments], capture_output=True, text=True, check=True
    )
    return finished.stdout.strip()


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
