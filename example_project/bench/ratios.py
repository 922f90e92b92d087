"""A ratio the report of ``manage.py benchmark_sitemaps`` prints: two cases of the table
(bench/table.py's ``RATIOS``) and the measure divided."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ratio:
    numerator: str
    denominator: str
    # "time", "CPU", "CPU with the database server", "extra RSS", "tracemalloc peak"
    # (figures.RATIO_MEASURES); or "TTFB", the numerator's time to first byte over
    # its whole time (the denominator is then the numerator).
    measure: str = "time"


def against(numerator: str, denominator: str, *measures: str) -> tuple[Ratio, ...]:
    return tuple(Ratio(numerator, denominator, measure) for measure in measures or ("time",))


MEMORY = ("time", "extra RSS", "tracemalloc peak")
