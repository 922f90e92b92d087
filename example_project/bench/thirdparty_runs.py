"""The third-party cases, in the parent process: each package's cases (its own view, a
native source of this package's, ...) timed in turns as the pairs of bench/turns.py
are, in children started with the package's settings; their locations compared. A
case whose package is not installed is left out, and the run says so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib.util import find_spec
from typing import Any

from django.core.management.base import CommandError

from bench.specs import THIRDPARTY
from bench.table import BY_NAME
from bench.turns import Spawn, measure_in_turns


def available(cases: list[str], log: Callable[[str], None]) -> list[str]:
    """``cases`` less the third-party ones whose package cannot be imported here."""
    missing = [
        name
        for name in cases
        if BY_NAME[name].package is not None and find_spec(str(BY_NAME[name].package)) is None
    ]
    for package in dict.fromkeys(str(BY_NAME[name].package) for name in missing):
        names = ", ".join(name for name in missing if BY_NAME[name].package == package)
        log(
            f"Skipped {names}: {package} is not installed (pip install "
            f"'django-sitemapkit[{package}]', or the thirdparty dependency group)."
        )
    return [name for name in cases if name not in missing]


def run_package(
    spawn: Spawn,
    log: Callable[[str], None],
    pair: str,
    cases: list[str],
    runs: int,
    measures: tuple[str, ...],
) -> dict[str, dict[str, Any]]:
    """The selected cases of ``pair`` in turns, in children with their settings."""
    names = [
        name for name in cases if BY_NAME[name].run == THIRDPARTY and BY_NAME[name].pair == pair
    ]
    settings = {str(BY_NAME[name].settings) for name in names}
    if len(settings) != 1:
        raise CommandError(f"The cases {names} of {pair} name other settings: {settings}.")
    in_package = partial(spawn, env={"DJANGO_SETTINGS_MODULE": settings.pop()})
    results = measure_in_turns(in_package, log, names, runs, measures)
    same_locations(results)
    return results


def same_locations(results: dict[str, dict[str, Any]]) -> None:
    """Fail loudly unless the cases listed the same locations: a view that lists fewer
    pages (or another host's) would look faster than it is."""
    digests = {name: result["time"]["warmup"]["locs_digest"] for name, result in results.items()}
    if len(set(digests.values())) > 1:
        first, *others = digests
        raise CommandError(
            f"{', '.join(others)} listed other <loc> values than {first}: the cases of a "
            "third-party package must list the same pages on the same host."
        )
