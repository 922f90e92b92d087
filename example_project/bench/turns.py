"""Cases run in turns (the table's ``TURNS``: a site case and its pair, 1 and 100
sites; a page without and with a declared exclusion): each timed in several
children, the order reversed every round, and its timed runs pooled into one
time measure."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from django.core.management.base import CommandError

# Children per case for the time measure, in turns with its pair.
ROUNDS = 3
Spawn = Callable[..., dict[str, Any]]


def measure_in_turns(
    spawn: Spawn, log: Callable[[str], None], names: list[str], runs: int, measures: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """Time the cases ``names`` (a pair) in turns, ROUNDS children each, the order
    reversed every round (1, 100; 100, 1; ...) so that a drift of the machine's
    speed weighs on both alike; weigh each once (the other ``measures``)."""
    children: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for turn in range(ROUNDS):
        for name in names if turn % 2 == 0 else names[::-1]:
            log(f"{name}: time, round {turn + 1} of {ROUNDS} ({runs} timed runs)...")
            children[name].append(spawn(f"--child={name}", "--measure=time", f"--runs={runs}"))
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        results[name] = {"time": pooled(name, children[name])}
        for how in measures[1:]:
            log(f"{name}: {how} (one run)...")
            results[name][how] = spawn(f"--child={name}", f"--measure={how}", "--runs=1")
    return results


def pooled(name: str, children: list[dict[str, Any]]) -> dict[str, Any]:
    """One time measure of several children's: each of their timed runs counts once."""
    digests = {child["warmup"]["digest"] for child in children}
    if len(digests) > 1:
        raise CommandError(f"{name} wrote other bytes in one of its child processes.")
    seconds = [value for child in children for value in child["seconds"]]
    cpu = [value for child in children for value in child["cpu"]]
    ttfbs = [value for child in children for value in child["ttfb"]]
    known = [value for value in ttfbs if value is not None]
    return {
        **children[0],
        "seconds": seconds,
        "median": statistics.median(seconds),
        "min": min(seconds),
        "cpu": cpu,
        "cpu_median": statistics.median(cpu),
        "cpu_with_server": pooled_values(children, "cpu_with_server"),
        "ttfb": ttfbs,
        "ttfb_median": statistics.median(known) if known else None,
        "bytes_per_run": [value for child in children for value in child["bytes_per_run"]],
        "child_medians": [child["median"] for child in children],
        "steps": {
            step: statistics.median(child["steps"][step] for child in children)
            for step in children[0]["steps"]
        },
    }


def pooled_values(children: list[dict[str, Any]], key: str) -> list[float] | None:
    """Every child's runs of a measure, or ``None`` unless every child measured it."""
    found = [child.get(key) for child in children]
    if any(values is None for values in found):
        return None
    return [value for values in found if values is not None for value in values]
