"""What a model's ``save()`` pays for ``SITEMAPKIT_CHANGES = "record"``, in one child
process: saves of one loaded ``bench.Page`` row with the setting ``None`` and
``"record"`` in pairs, the order reversed every pair, each save timed alone (wall
and CPU), in a transaction (``atomic()``, as a request with ``ATOMIC_REQUESTS``)
and in autocommit (each statement its own transaction, Django's default); and the
statements each adds, captured.

With ``None`` the receivers stay connected (the setting is read live, as
``override_settings`` changes it) and return at their first line: a project that
never set it has no receiver at all, a microsecond less than the ``None`` here.
"""

from __future__ import annotations

import datetime as dt
import statistics
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from bench.fresh_sets import clear_records
from bench.fresh_specs import PAIRS_PER_RUN, SETTING, WAYS
from bench.measuring import current_rss, peak_rss
from bench.models import Page
from bench.seeding import updated_at_for
from bench.sizes import Plan
from bench.sources import register_bench_source, warm_process

#: Untimed saves of each kind first: the statements prepared, the caches warm.
WARMUP = 20
#: The row saved: the first of the table, which every size holds.
KEY = 1


def saver(way: str, row: Page) -> Callable[[int], float]:
    """A save of ``row`` with a new ``updated_at`` (every save changes it, as a real edit
    does), ``way``: in ``atomic()`` or in autocommit; its wall seconds."""
    base = updated_at_for(KEY)

    def save(number: int) -> float:
        row.updated_at = base + dt.timedelta(microseconds=number % 1_000 + 1)
        context = transaction.atomic() if way == "atomic" else nullcontext()
        started = time.perf_counter()
        with context:
            row.save()
        return time.perf_counter() - started

    return save


def statements(save: Callable[[int], float], mode: str | None) -> list[str]:
    """The SQL of one save with SITEMAPKIT_CHANGES ``mode``."""
    with override_settings(SITEMAPKIT_CHANGES=mode), CaptureQueriesContext(connection) as found:
        save(0)
    return [query["sql"] for query in found.captured_queries]


def paired(save: Callable[[int], float], pairs: int) -> dict[str, dict[str, list[float]]]:
    """``pairs`` saves in each mode, one of each in turn, the order reversed every pair."""
    found: dict[str, dict[str, list[float]]] = {m: {"wall": [], "cpu": []} for m in SETTING}
    for number in range(pairs):
        order = list(SETTING) if number % 2 == 0 else list(SETTING)[::-1]
        for name in order:
            with override_settings(SITEMAPKIT_CHANGES=SETTING[name]):
                cpu = time.process_time()
                found[name]["wall"].append(save(number))
                found[name]["cpu"].append(time.process_time() - cpu)
    return found


def summary(times: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    none, record = times["none"], times["record"]
    ratios = [b / a for a, b in zip(none["wall"], record["wall"], strict=True)]
    return {
        **{
            f"{name}_{measure}_median": statistics.median(times[name][measure])
            for name in SETTING
            for measure in ("wall", "cpu")
        },
        "ratio_of_medians": statistics.median(record["wall"]) / statistics.median(none["wall"]),
        "median_of_pair_ratios": statistics.median(ratios),
        "added_median": statistics.median(
            b - a for a, b in zip(none["wall"], record["wall"], strict=True)
        ),
        "times": times,
    }


def measure_saves(plan: Plan, runs: int, output: str | None) -> dict[str, Any]:
    """Each way of saving, its pairs; the statements of a save in each mode."""
    register_bench_source(plan.serve_size)
    warm_process()
    baseline = current_rss()
    # Connects the receivers (after the source is registered: they follow its model).
    with override_settings(SITEMAPKIT_CHANGES="record"):
        pass
    clear_records()
    row = Page.objects.get(pk=KEY)
    pairs = PAIRS_PER_RUN * runs
    found: dict[str, Any] = {"case": "fresh-save", "pairs": pairs, "baseline": baseline}
    try:
        for way in WAYS:
            save = saver(way, row)
            paired(save, WARMUP)
            found[way] = {
                **summary(paired(save, pairs)),
                "statements": {name: statements(save, mode) for name, mode in SETTING.items()},
            }
    finally:
        Page.objects.filter(pk=KEY).update(updated_at=updated_at_for(KEY))
        found["records_written"] = clear_records()
    found["peak"] = peak_rss()
    return found
