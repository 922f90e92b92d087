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

The command reads its options and starts the parent (bench/parent.py), or, in a
child, does what the parent asked (bench/child.py). The cases are declared in
bench/table.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import child
from bench.options import case_list, check_config, config_of, plan_of, positive_int, whole_number
from bench.parent import MEASURES, Benchmark
from bench.sizes import PAGE_MAX
from bench.specs import DEFAULT
from bench.table import GROUPS, NAMES
from bench.turns import ROUNDS


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
            f"each of {ROUNDS} child processes; runs of the three incremental steps; pairs "
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
            default=list(GROUPS[DEFAULT]),
            metavar="A,B,...",
            help=f"cases to run: {', '.join(NAMES)}; or the groups 'default' (all but "
            "the index, sites, exclusion and compat-only cases, the default), 'compat' "
            "(contrib's sitemap view and django_sitemapkit.compat's over the same Sitemap "
            "classes, those classes "
            "registered with compat.register(), built and served from the files, ours "
            "and build-gzip), "
            "'index' (the three index cases), 'sites' (the index and a page with 1 and "
            "with 100 sites, by SITEMAPKIT_SITES as a dict and as 'django.contrib.sites', "
            "1 and 100 in turns), 'exclusion' (ours's page without and with a declared "
            "noindex that keeps no row out, in turns), 'incremental' (build_sitemaps "
            "three times into one directory: into it empty, with nothing changed, after "
            "rows of the build "
            "table were appended, deleted and updated; --runs times), 'distributed' "
            "(the --build-rows table into an S3 bucket from one process and through 2 "
            "Celery workers, in --runs pairs; Redis, moto's S3 server and the workers "
            "started on 127.0.0.1 by the benchmark), 'dropin' (contrib's sitemap and "
            "index views against django_sitemapkit.compat's, for a page, the index and a "
            "conditional GET, a GenericSitemap and a hand-written class, in turns, with "
            "their CPU seconds), 'fresh' (SITEMAPKIT_CHANGES: a save with and without its "
            "change record, the refresh against today's incremental build after 1, 100 and "
            "10,000 changed rows, commit to served, the index with and without the record), "
            "'robots' (ours's page without robots.txt, and under SITEMAPKIT_ROBOTS = 'exclude' "
            "with 40,000 rules and with 2, in turns) and 'all'",
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
        config = config_of(options)
        check_config(config)
        try:
            Benchmark(self, config).run()
        except KeyboardInterrupt:
            raise CommandError("Interrupted.", returncode=130) from None

    def child(self, options: dict[str, Any]) -> None:
        job = child.Job(
            name=options["child"],
            plan=plan_of(options),
            measure=options["measure"],
            runs=options["runs"],
            seed_rows=options["seed_rows"],
            seed_index_rows=options["seed_index_rows"],
            reseed=options["reseed"],
            output_dir=options["output_dir"],
        )
        # Only the JSON line may reach stdout: whatever else is printed (a
        # command's output, a warning) goes to stderr with the logs.
        with contextlib.redirect_stdout(sys.stderr):
            result = child.run(job)
        self.stdout.write(json.dumps(result))
