"""Key and lastmod values as JSON, for what is kept outside the process: a build's
manifest, a distributed job, a change record.

A key or a lastmod is any value a database column gives: JSON has no dates,
decimals or UUIDs, so those are written as ``{"type": "text"}`` and read back
(``build/schema.py`` checks what it reads).
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

TAGGED: dict[str, Any] = {
    "datetime": dt.datetime.fromisoformat,
    "date": dt.date.fromisoformat,
    "time": dt.time.fromisoformat,
    "decimal": decimal.Decimal,
    "uuid": uuid.UUID,
}


def encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    for tag, kind in (("datetime", dt.datetime), ("date", dt.date), ("time", dt.time)):
        if isinstance(value, kind):
            return {tag: value.isoformat()}
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value)}
    raise TypeError(f"a key or lastmod of type {type(value).__name__} cannot be recorded")
