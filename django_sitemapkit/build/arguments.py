"""What the commands' options take: a whole number of 1 or more (``--jobs``), a
percentage (``--max-removed``)."""

from __future__ import annotations

import argparse
import math


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return number


def percent(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0 <= number <= 100:  # NaN compares false too
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 100, not {value}")
    return number
