from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.values import (
    CHANGEFREQS,
    Horizon,
    format_changefreq,
    format_lastmod,
    format_priority,
    http_timestamp,
)

UTC = dt.timezone.utc


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (dt.date(2024, 2, 29), "2024-02-29"),
        (dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC), "2024-05-06T07:08:09+00:00"),
        # Sub-seconds are dropped, never rounded up into the next second.
        (dt.datetime(2024, 5, 6, 7, 8, 9, 999_999, tzinfo=UTC), "2024-05-06T07:08:09+00:00"),
        # Aware values in any zone are written in UTC.
        (
            dt.datetime(2024, 7, 1, 2, 30, tzinfo=ZoneInfo("America/New_York")),
            "2024-07-01T06:30:00+00:00",
        ),
        (
            dt.datetime(2024, 1, 1, 0, 30, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))),
            "2023-12-31T19:00:00+00:00",
        ),
        # The year keeps four digits.
        (dt.datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC), "0999-01-02T03:04:05+00:00"),
        (dt.date(9999, 12, 31), "9999-12-31"),
    ],
)
def test_format_lastmod(value: dt.date, expected: str) -> None:
    assert format_lastmod(value) == expected


@override_settings(TIME_ZONE="Asia/Tokyo")
def test_naive_datetime_is_read_in_the_project_time_zone() -> None:
    assert format_lastmod(dt.datetime(2024, 1, 1, 9, 0, 0)) == "2024-01-01T00:00:00+00:00"


@override_settings(TIME_ZONE="Europe/Paris", USE_TZ=False)
def test_naive_datetime_without_use_tz_is_still_read_in_time_zone() -> None:
    assert format_lastmod(dt.datetime(2024, 7, 1, 12, 0, 0)) == "2024-07-01T10:00:00+00:00"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2024-01-01", "lastmod '2024-01-01' is not a date or datetime"),
        (1_700_000_000, "lastmod 1700000000 is not a date or datetime"),
        (
            dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1))),
            "lastmod datetime.datetime(1, 1, 1, 0, 0, tzinfo=datetime.timezone("
            "datetime.timedelta(seconds=3600))) cannot be expressed in UTC",
        ),
    ],
)
def test_format_lastmod_rejects(value: object, message: str) -> None:
    with pytest.raises(InvalidEntry) as info:
        format_lastmod(value)
    assert str(info.value) == message


def test_changefreq_values_are_the_protocols_seven() -> None:
    assert [format_changefreq(v) for v in CHANGEFREQS] == [
        "always",
        "hourly",
        "daily",
        "weekly",
        "monthly",
        "yearly",
        "never",
    ]


@pytest.mark.parametrize("value", ["Daily", "sometimes", "", None, 1])
def test_changefreq_rejects(value: object) -> None:
    with pytest.raises(InvalidEntry, match=r"^changefreq .* is not one of always, hourly"):
        format_changefreq(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0.0"),
        (1, "1.0"),
        (0.6, "0.6"),
        (0.125, "0.125"),
        (Decimal("0.50"), "0.5"),
        (1e-5, "0.0"),
        (0.99999, "1.0"),
        (-0.0, "0.0"),  # found by the property tests: it was written "-0.0"
        (Decimal("-0"), "0.0"),
    ],
)
def test_format_priority(value: float, expected: str) -> None:
    assert format_priority(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "priority 1.5 is outside 0.0 to 1.0"),
        (-0.1, "priority -0.1 is outside 0.0 to 1.0"),
        (math.nan, "priority nan is outside 0.0 to 1.0"),
        (True, "priority True is not a number"),
        ("0.5", "priority '0.5' is not a number"),
        # Found by the property tests: comparing a Decimal NaN raised
        # InvalidOperation, and the page failed with a 500.
        (Decimal("NaN"), "priority Decimal('NaN') is not a number"),
        (Decimal("-sNaN"), "priority Decimal('-sNaN') is not a number"),
    ],
)
def test_format_priority_rejects(value: object, message: str) -> None:
    with pytest.raises(InvalidEntry) as info:
        format_priority(value)
    assert str(info.value) == message


def test_http_timestamp_of_a_date_is_midnight_utc() -> None:
    assert http_timestamp(dt.date(2024, 1, 2)) == 1_704_153_600
    assert http_timestamp(dt.datetime(2024, 1, 2, 1, tzinfo=ZoneInfo("Europe/Paris"))) == (
        1_704_153_600
    )


# -- the latest lastmod written now --------------------------------------------------


@pytest.mark.parametrize(
    ("lastmod", "passed"),
    [
        # Five minutes past the clock for the skew between two clocks, to the second.
        ("2030-01-01T12:05:00+00:00", False),
        ("2030-01-01T12:05:01+00:00", True),
        ("2029-12-31T23:59:59+00:00", False),
        # A date once UTC+14 has reached it: at 12:05 UTC it is 02:05 on the 2nd there.
        ("2030-01-01", False),
        ("2030-01-02", False),
        ("2030-01-03", True),
        ("9999-12-31", True),
    ],
)
def test_the_horizon_of_a_moment(lastmod: str, passed: bool) -> None:
    assert Horizon(dt.datetime(2030, 1, 1, 12, tzinfo=UTC)).passed(lastmod) is passed


def test_a_date_is_reached_at_ten_utc_less_the_skew() -> None:
    assert Horizon(dt.datetime(2030, 1, 1, 9, 54, 59, tzinfo=UTC)).passed("2030-01-02") is True
    assert Horizon(dt.datetime(2030, 1, 1, 9, 55, tzinfo=UTC)).passed("2030-01-02") is False


def test_a_moment_past_year_9999_passes_nothing() -> None:
    # A manifest's moment is read from outside the process: no OverflowError.
    latest = Horizon(dt.datetime(9999, 12, 31, 23, 58, tzinfo=UTC))
    assert latest.latest == ("9999-12-31", "9999-12-31T23:59:59+00:00")
    assert latest.passed("9999-12-31T23:59:59+00:00") is False


def test_a_horizon_of_the_clock_moves_on_when_a_value_passes_it() -> None:
    """A build that runs for hours never leaves out the date of a row saved meanwhile."""
    horizon = Horizon()
    horizon.latest = Horizon.limits(dt.datetime(2024, 5, 1, tzinfo=UTC))
    now = format_lastmod(dt.datetime.now(UTC))
    assert horizon.passed(now) is False
    assert horizon.latest[1] >= now
    fixed = Horizon(dt.datetime(2024, 5, 1, tzinfo=UTC))
    assert fixed.passed(now) is True
