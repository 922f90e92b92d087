"""The rules of the settings table (setting_rows.py): what each accepts, and how a
check's message names it."""

from __future__ import annotations

import datetime as dt
import math
import os
from pathlib import Path as FilePath

import pytest

from django_sitemapkit.setting_rows import (
    Choice,
    Duration,
    Flag,
    Name,
    Path,
    Percent,
    Rule,
    Seconds,
    Setting,
    Text,
    WholeNumber,
)


class BytesPath(os.PathLike[bytes]):
    def __fspath__(self) -> bytes:
        return b"/srv/sitemaps"


DAY = dt.timedelta(days=1)
ZERO = dt.timedelta(0)

RULES = [
    (Flag(), "True or False", [True, False], [0, 1, "True", None]),
    (
        WholeNumber(1, 10),
        "a whole number from 1 to 10",
        [1, 10],
        [0, 11, True, 1.0, "1", None],
    ),
    (
        WholeNumber(1_024, 52_428_800),
        "a whole number from 1,024 to 52,428,800",
        [1_024],
        [1_023, 52_428_801],
    ),
    (WholeNumber(1), "a whole number of 1 or more", [1, 10**9], [0, -1, True]),
    (Duration(), "a timedelta of more than 0", [DAY], [ZERO, -DAY, 1, None]),
    (Duration(allows_zero=True), "a timedelta of 0 or more", [ZERO, DAY], [-DAY, None]),
    (Duration(or_none=True), "a timedelta of more than 0", [None, DAY], [ZERO]),
    (
        Seconds(),
        "a positive number of seconds",
        [10, 0.5],
        [0, -1, True, math.inf, math.nan, "10", None],
    ),
    (
        Percent(or_none=True),
        "a number from 0 to 100",
        [0, 100, 12.5, None],
        [-1, 100.5, True, math.nan, math.inf, "20", "20%"],
    ),
    (
        Choice(("a", "b", "c")),
        "one of 'a', 'b', 'c'",
        ["a", "c"],
        ["A", "d", ["a"], None],
    ),
    (Choice(("https", "http")), "'https' or 'http'", ["https"], ["ftp"]),
    (Text(), "a str", ["", "key"], [b"key", 1, None]),
    (Name(or_none=True), "a name", ["default", None], ["", " \n", 1]),
    (
        Path(or_none=True),
        "a path",
        ["/srv", FilePath("/srv"), "relative", None],
        [b"/srv", BytesPath(), 1],
    ),
]


@pytest.mark.parametrize(
    ("rule", "expected", "accepted", "refused"), RULES, ids=lambda value: repr(value)[:40]
)
def test_rule(rule: Rule, expected: str, accepted: list[object], refused: list[object]) -> None:
    assert rule.expected == expected
    assert [value for value in accepted if not rule.accepts(value)] == []
    assert [value for value in refused if rule.accepts(value)] == []


def test_a_rule_is_made_of_its_kinds() -> None:
    rule = Rule()
    with pytest.raises(NotImplementedError):
        rule.accepts(1)
    with pytest.raises(NotImplementedError):
        _ = rule.expected
    assert rule.accepts(None) is False


class Example:
    COUNT: Setting[int] = Setting("int", 3, "How many.", WholeNumber(1))


def test_a_row_is_named_by_its_attribute_and_read_from_the_instance() -> None:
    row = Example.COUNT
    assert (row.name, row.setting, row.default) == ("COUNT", "SITEMAPKIT_COUNT", 3)
    assert Example().COUNT == 3
    assert row.raw() == 3


def test_a_row_is_immutable() -> None:
    with pytest.raises(AttributeError):
        Example.COUNT.default = 4  # type: ignore[misc]
