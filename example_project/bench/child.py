"""What a child process of ``manage.py benchmark_sitemaps`` does: seed the tables
(``prepare``), change or restore the build table between the incremental steps,
or run one case of the table with one measure. Its result is one JSON line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection

from bench import fresh_sets, incremental_cases, measuring, seeding
from bench.fresh_specs import FRESH
from bench.models import IndexPage, Page
from bench.sizes import PAGE_MAX, Plan
from bench.specs import MEASURED, PAIRS, STEPS, THIRDPARTY, TURNS
from bench.speed_specs import SPEED
from bench.table import BY_NAME


@dataclass
class Job:
    """The options the parent gave a child."""

    name: str
    plan: Plan
    measure: str | None
    runs: int
    seed_rows: int
    seed_index_rows: int
    reseed: bool
    output_dir: str | None


def run(job: Job) -> dict[str, Any]:
    if job.name == "prepare":
        return prepare(job.seed_rows, job.seed_index_rows, job.reseed)
    task = {**incremental_cases.TASKS, **fresh_sets.TASKS}.get(job.name)
    if task is not None:
        return task(job.plan)
    spec = BY_NAME[job.name]
    make = spec.maker()
    if spec.run in (MEASURED, TURNS, THIRDPARTY):
        assert job.measure is not None, f"case {job.name!r} needs --measure"
        case = make(job.plan, *spec.args)
        return measuring.measure(job.name, job.measure, case, job.runs)
    if spec.run == SPEED:
        sped: dict[str, Any] = make(job.plan, job.runs, *spec.args)
        return sped
    if spec.run == FRESH:
        done: dict[str, Any] = make(job.plan, job.runs, job.output_dir, *spec.args)
        return done
    if spec.run == STEPS:
        result: dict[str, Any] = make(job.name, job.measure, job.plan, job.output_dir)
        return result
    assert spec.run == PAIRS, f"case {job.name!r} is run in no known way"
    built: dict[str, Any] = make(job.name)
    return built


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
            report = seeding.ensure_rows(rows, reseed, model)
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
        "database_version": seeding.database_version(),
        **seeds,
        "blog_rows": seeding.blog_rows(),
        "other_urls": sum(counts),
        # At the default 50,000 URLs a page.
        "other_pages": sum(-(-count // PAGE_MAX) for count in counts),
        "other_pages_everywhere": sum(-(-count // PAGE_MAX) for count in everywhere),
    }


def describe_db() -> str:
    params = connection.settings_dict
    if connection.vendor == "postgresql":
        return f"PostgreSQL {params['USER']}@{params['HOST']}:{params['PORT']}/{params['NAME']}"
    return f"SQLite {params['NAME']}"
