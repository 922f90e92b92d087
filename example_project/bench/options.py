"""The command line of ``manage.py benchmark_sitemaps``, read into a ``Config`` and
checked before anything is seeded or started."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from bench import distributed_services
from bench.incremental_changes import MIN_ROWS
from bench.sizes import Plan
from bench.specs import BUILD_TABLE, INDEX_TABLE, PAGE_TABLE, PAIRS, STEPS, CaseSpec
from bench.table import BY_NAME, GROUPS, NAMES


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
    names = [name for item in given for name in GROUPS.get(item, (item,))]
    unknown = [name for name in names if name not in BY_NAME]
    if unknown or not names:
        problem = f"unknown case {unknown[0]!r}" if unknown else "no case given"
        choices = ", ".join([*NAMES, *GROUPS])
        raise argparse.ArgumentTypeError(f"{problem}; choose from {choices}")
    # Always in the canonical order: the URL-count check of the first cases
    # fails a bad run before the long build cases start.
    return [name for name in NAMES if name in names]


def plan_of(options: dict[str, Any]) -> Plan:
    return Plan(
        rows=options["rows"], build_rows=options["build_rows"], index_rows=options["index_rows"]
    )


@dataclass
class Config:
    plan: Plan
    cases: list[str]
    runs: int
    build_runs: int
    database: str
    reseed: bool
    json_path: Path | None

    @property
    def specs(self) -> list[CaseSpec]:
        return [BY_NAME[name] for name in self.cases]

    def runs_for(self, name: str) -> int:
        return self.build_runs if BY_NAME[name].builds else self.runs

    @property
    def table_rows(self) -> int:
        """Rows the selected cases need in ``bench_page``: the serving page, or the
        whole build table; 0 if none of them reads it (it is then left as it is)."""
        reads = {spec.reads for spec in self.specs}
        needed = [self.plan.rows] if PAGE_TABLE in reads else []
        if BUILD_TABLE in reads:
            needed.append(self.plan.build_rows)
        return max(needed, default=0)

    @property
    def index_table_rows(self) -> int:
        """Rows the index cases need in ``bench_indexpage``; 0 if none was selected."""
        reads = {spec.reads for spec in self.specs}
        return self.plan.index_rows if INDEX_TABLE in reads else 0


def config_of(options: dict[str, Any]) -> Config:
    return Config(
        plan=plan_of(options),
        cases=options["cases"],
        runs=options["runs"],
        build_runs=options["build_runs"],
        database=options["database"],
        reseed=options["reseed"],
        json_path=Path(options["json"]) if options["json"] else None,
    )


def check_config(config: Config) -> None:
    runs = {spec.run for spec in config.specs}
    serving = any(spec.serves_page for spec in config.specs)
    building = any(spec.reads == BUILD_TABLE for spec in config.specs)
    if serving and building and config.plan.rows > config.plan.build_rows:
        raise CommandError(
            "--rows is larger than --build-rows: the build cases would cover more "
            "rows than asked. Lower --rows or raise --build-rows."
        )
    if STEPS in runs and config.plan.build_rows < MIN_ROWS:
        raise CommandError(
            f"--build-rows {config.plan.build_rows:,} is too few for the incremental cases, "
            f"whose changes need {MIN_ROWS:,} rows or more. Raise --build-rows."
        )
    if config.database == "postgresql":
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise CommandError(
                "--database postgresql needs psycopg: pip install 'psycopg[binary]'."
            ) from None
    if PAIRS in runs:
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
