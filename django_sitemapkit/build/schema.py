"""The schema of manifest-shaped data from outside this process: a manifest read back
from the directory or storage (``reading.py``), and a worker's result from the
result backend (``distributed/jobs.py``).

Both hold the same structures (a file's record, a range's stats, key values),
and neither is trusted. Each value is checked here against the package's own
schema: its type, its range, each list's length, each name's grammar. Each
``lastmod`` is parsed and must be what a build writes (``values.py``), and
each key value must decode and encode back to the very JSON it was.
Anything else raises ``Invalid``, whose message says where the value is and
shows it: a build then sets a manifest aside and renders every file afresh,
and fails rather than publish a result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django_sitemapkit.build.manifest import ManifestFile
from django_sitemapkit.conf import MAX_BYTES, MAX_URLS
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.names import PAGE_FILENAME
from django_sitemapkit.sources.json_values import TAGGED, encode
from django_sitemapkit.values import format_lastmod, parse_lastmod, utc_instant

#: A row count: a database's signed 64-bit integer.
MOST_ROWS = 2**63 - 1
#: An integer key value is a 64-bit column; a key sum adds up to 2**63 of them.
KEY_BITS, KEY_SUM_BITS = 64, 128
#: Columns of a key, characters of a text value (a key, a tagged value, a host).
MOST_COLUMNS, MOST_TEXT, MOST_TAGGED = 16, 10_000, 100
#: The views serve page numbers of one to nine digits (``names.py``).
MOST_PAGE = 999_999_999
SHA256 = re.compile(r"[0-9a-f]{64}")
#: A file's record as a renderer reports it; a manifest's (format 3) has its ``lastmod`` too.
FILE_FIELDS = ("gzip_sha256", "gzip_size", "name", "newest", "sha256", "size", "urls")
DATED_FIELDS = (*FILE_FIELDS, "lastmod")
STATS_FIELDS = ("key_sum", "lastmod", "rows")


class Invalid(ValueError):
    """A value the schema does not allow."""


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def refuse(where: str, value: Any, expected: str) -> Invalid:
    return Invalid(f"{where} is {shown(value)}, not {expected}")


def fields(value: Any, where: str, names: tuple[str, ...]) -> dict[str, Any]:
    """``value``, an object with exactly the keys ``names``."""
    if not isinstance(value, dict):
        raise refuse(where, value, "an object")
    if set(value) != set(names):
        keys = sorted(map(str, value))
        raise Invalid(f"{where} has the keys {keys}, not {sorted(names)}")
    return value


def whole(value: Any, where: str, low: int = 0, high: int = MOST_ROWS) -> int:
    # type() and not isinstance(): JSON's true is no count.
    if type(value) is not int or not low <= value <= high:
        raise refuse(where, value, f"a whole number from {low:,} to {high:,}")
    return value


def seconds(value: Any, where: str) -> float:
    """A duration, or a moment as ``time.time()`` gives it."""
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise refuse(where, value, "a number of seconds")
    return float(value)


def text(value: Any, where: str, expected: str, grammar: re.Pattern[str] | None = None) -> str:
    if (
        not isinstance(value, str)
        or len(value) > MOST_TEXT
        or (grammar is not None and not grammar.fullmatch(value))
    ):
        raise refuse(where, value, expected)
    return value


def items(value: Any, where: str, most: int) -> list[Any]:
    if not isinstance(value, list) or len(value) > most:
        raise refuse(where, value, f"a list of at most {most:,} items")
    return value


def lastmod(value: Any, where: str) -> str | None:
    """A file's newest ``lastmod``, as ``values.format_lastmod()`` writes it."""
    if value is None:
        return None
    expected = "a lastmod as a build writes it (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00)"
    if not isinstance(value, str) or len(value) not in (10, 25):
        raise refuse(where, value, expected)
    try:
        again = format_lastmod(parse_lastmod(value))
    except (ValueError, InvalidEntry):
        again = None
    if again != value:
        raise refuse(where, value, expected)
    return value


def key_value(value: Any, where: str) -> Any:
    """A key column's value (or a range's newest lastmod), as ``manifest.encode()``
    writes it: a JSON scalar, or a date, time, decimal or UUID tagged with its type."""
    expected = "a key value as a build writes it"
    decoded: Any = value
    if isinstance(value, dict) and len(value) == 1:
        ((tag, written),) = value.items()
        if tag not in TAGGED or not isinstance(written, str) or len(written) > MOST_TAGGED:
            raise refuse(where, value, expected)
        try:
            decoded = TAGGED[tag](written)
        except (ValueError, ArithmeticError):  # decimal.InvalidOperation is the latter
            raise refuse(where, value, expected) from None
        if isinstance(decoded, Decimal) and not decoded.is_finite():
            raise refuse(where, value, expected)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise refuse(where, value, expected)
    elif isinstance(value, str):
        text(value, where, expected)
    elif type(value) is int:
        whole(value, where, -(2 ** (KEY_BITS - 1)), 2**KEY_BITS - 1)
    elif not isinstance(value, bool):
        raise refuse(where, value, expected)
    if encode(decoded) != value:
        raise refuse(where, value, expected)
    return decoded


def key(value: Any, where: str) -> tuple[Any, ...] | None:
    """Where a shard's range starts: ``None`` (the section's start), or a key's values."""
    if value is None:
        return None
    if not isinstance(value, list) or not 1 <= len(value) <= MOST_COLUMNS:
        raise refuse(where, value, f"a list of 1 to {MOST_COLUMNS} key values")
    return tuple(key_value(item, f"{where}[{number}]") for number, item in enumerate(value))


def stats(value: Any, where: str) -> dict[str, Any] | None:
    """A range's stats as ``manifest.encode_stats()`` writes them, or ``None``."""
    if value is None:
        return None
    data = fields(value, where, STATS_FIELDS)
    whole(data["rows"], f"{where}.rows")
    if data["lastmod"] is not None:
        key_value(data["lastmod"], f"{where}.lastmod")
    if data["key_sum"] is not None:
        bound = 2**KEY_SUM_BITS
        whole(data["key_sum"], f"{where}.key_sum", -bound, bound)
    return dict(data)


def listed_date(value: Any, where: str, newest: str | None) -> str | None:
    """A file's date in the index: ``None``, or a lastmod no earlier than its newest
    (``dates.py`` never dates a file before its rows)."""
    date = lastmod(value, where)
    if date is not None and (
        newest is None or utc_instant(parse_lastmod(date)) < utc_instant(parse_lastmod(newest))
    ):
        raise refuse(where, value, f"None or a lastmod no earlier than newest ({newest!r})")
    return date


def manifest_file(
    value: Any, where: str, named: Callable[[str], bool], expected_name: str, dated: bool = False
) -> ManifestFile:
    """One file's record; ``named`` says whether its name is one the caller expects.
    ``dated``: it has its date in the index (a manifest's of format 3), else it is
    ``None``."""
    data = fields(value, where, DATED_FIELDS if dated else FILE_FIELDS)
    if not isinstance(data["name"], str) or not named(data["name"]):
        raise refuse(f"{where}.name", data["name"], expected_name)
    size = whole(data["size"], f"{where}.size", 1, MAX_BYTES)
    gzip_size, gzip_sha256 = data["gzip_size"], data["gzip_sha256"]
    if gzip_size is not None or gzip_sha256 is not None:
        # Deflate's stored blocks add 5 bytes to each 64 KiB, gzip 18 to the whole.
        whole(gzip_size, f"{where}.gzip_size", 1, size + size // 1024 + 1024)
        text(gzip_sha256, f"{where}.gzip_sha256", "a SHA-256 in hexadecimal", SHA256)
    newest = lastmod(data["newest"], f"{where}.newest")
    return ManifestFile(
        name=data["name"],
        urls=whole(data["urls"], f"{where}.urls", 1, MAX_URLS),
        newest=newest,
        size=size,
        gzip_size=gzip_size,
        sha256=text(data["sha256"], f"{where}.sha256", "a SHA-256 in hexadecimal", SHA256),
        gzip_sha256=gzip_sha256,
        lastmod=listed_date(data["lastmod"], f"{where}.lastmod", newest) if dated else None,
    )


def page_of(section: str) -> Callable[[str], bool]:
    """Whether a name is a page file of ``section`` the views serve: a build links,
    lists and deletes the names its manifest gives, so one planted in the directory or
    storage must not name another file (``"../x"``, ``"media/photo.jpg"``)."""

    def named(name: str) -> bool:
        match = PAGE_FILENAME.match(name)
        return match is not None and match["section"] == section and int(match["page"]) <= MOST_PAGE

    return named
