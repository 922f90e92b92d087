"""A change record read back (``models.Change``), within bounds.

What a record holds crossed a process boundary (another process wrote it,
perhaps another release, perhaps raw SQL): its text is measured before it is
decoded (its length, and how deep its brackets nest: ``json.loads`` recurses,
and 3,000 nested ``[`` raise ``RecursionError``), and each value is checked
against the model's own field. A record that does not fit is set aside, never
raised: it is read as a change to every row of its model (or, when it names no
model it could be, of every model), whose sections the refresh renders whole,
and it is applied with them, so that it is not read again. It is logged once
per process.
"""

from __future__ import annotations

import json
import logging
import reprlib
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models

from django_sitemapkit.sources.json_values import TAGGED

logger = logging.getLogger("django_sitemapkit")
#: A record's ``before`` when where the row was is not known (an instance saved
#: without being loaded, with a key of more than its primary key).
UNKNOWN = "?"
#: The ``model`` of a record set aside whose own ``model`` is no text: it may be of
#: any model, and every section that reads a model is rendered whole.
ANY_MODEL = "*"
#: The longest value of a record read back (a key is a few columns).
MOST_TEXT = 10_000
#: The deepest nesting read back: a place is an object of tagged values (3 deep), and
#: a coalesced record's places an array of them.
MOST_DEPTH = 8
#: The most column values in a place (a key is a few columns).
MOST_COLUMNS = 16
#: The records already logged as set aside, so that each is logged once.
_told: set[int] = set()
MOST_TOLD = 10_000


@dataclass(frozen=True)
class Changed:
    """One record, read back."""

    id: int
    model: str
    #: The row's primary key; ``None``: every row of the model.
    row: Any
    #: The values of its key's columns before each change it holds, by attribute
    #: name; empty: it did not move (or was inserted).
    befores: tuple[dict[str, Any], ...] = ()
    #: ``False``: where it was is not known.
    placed: bool = True
    #: The commits it stands for (``coalescing.py``), and the id of the first record
    #: it was coalesced from; ``None``: none before it.
    saves: int = 1
    first: int | None = None


def decoded(text: Any) -> Any:
    """``text`` as JSON, once its length and nesting are known to be within bounds."""
    if not isinstance(text, str):
        raise ValueError(f"a value of type {type(text).__name__}, not text")
    if len(text) > MOST_TEXT:
        raise ValueError(f"a value of {len(text):,} characters, past {MOST_TEXT:,}")
    depth = nesting(text)
    if depth > MOST_DEPTH:
        raise ValueError(f"a value nested {depth:,} deep, past {MOST_DEPTH}")
    return json.loads(text)


def nesting(text: str) -> int:
    """How deep the brackets of ``text`` nest, those in strings not counted; one pass,
    skipped where there are too few brackets to be too deep."""
    if text.count("[") + text.count("{") <= MOST_DEPTH:
        return 0
    deepest = depth = 0
    quoted = escaped = False
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def tagged(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        ((tag, written),) = value.items()
        if tag in TAGGED and isinstance(written, str):
            return TAGGED[tag](written)
    return value


def column_value(model: type[models.Model], column: Any, value: Any) -> Any:
    """``value`` (decoded) as a value of ``column``, of the very type the column gives."""
    value = tagged(value)
    try:
        read = column.to_python(value)
    except ValidationError:
        read = None
    if type(read) is not type(value) or read != value:
        raise ValueError(f"{reprlib.repr(value)} is no value of {model._meta.label}.{column.name}")
    return read


def places(text: str) -> list[dict[str, Any]]:
    """A record's ``before``, decoded: one place (an object, as a record of one save
    is written) or several (an array of them, as a coalesced record is)."""
    value = decoded(text)
    found = value if isinstance(value, list) else [value]
    if not found or not all(isinstance(place, dict) for place in found):
        raise ValueError("not an object of column values, nor an array of them")
    return found


def place_values(model: type[models.Model], place: dict[str, Any]) -> dict[str, Any]:
    if len(place) > MOST_COLUMNS:
        raise ValueError(f"an object of {len(place)} columns, past {MOST_COLUMNS}")
    columns = {f.attname: f for f in model._meta.concrete_fields}
    found = {}
    for name, written in place.items():
        if name not in columns:
            raise ValueError(f"{name!r} is no column of {model._meta.label}")
        found[name] = column_value(model, columns[name], written)
    return found


def read(id_: int, label: Any, row: Any, before: Any, saves: Any = 1, first: Any = None) -> Changed:
    """A record as the refresh applies it. One that does not fit its model is a change
    to every row of it, one that names no text a change to every row of every model
    (both logged once), and one of a model no longer installed is none."""
    counts = (
        saves if type(saves) is int and saves > 0 else 1,
        first if type(first) is int else None,
    )
    if not isinstance(label, str):
        told(
            id_,
            "Change record %s names no model (%s): every section that reads a model is "
            "rendered again whole.",
            f"a value of type {type(label).__name__}",
        )
        return Changed(id_, ANY_MODEL, None, (), False, *counts)
    try:
        model = apps.get_model(label)
    except (LookupError, ValueError):
        told(id_, "Change record %s names %r, which is no installed model: left out.", label)
        return Changed(id_, label[:200], None, (), False, *counts)
    try:
        pk = None if row is None else column_value(model, model._meta.pk, decoded(row))
        if before is None:
            return Changed(id_, label, pk, (), True, *counts)
        if before == UNKNOWN:
            return Changed(id_, label, pk, (), False, *counts)
        found = tuple(place_values(model, place) for place in places(before))
        return Changed(id_, label, pk, found, True, *counts)
    except Exception as exc:  # whatever the text makes json or a field raise
        told(
            id_,
            "Change record %s of %r cannot be read (%s): the sections that read the model "
            "are rendered again whole.",
            label,
            exc,
        )
        return Changed(id_, label, None, (), False, *counts)


def told(id_: int, message: str, *args: Any) -> None:
    """Log ``message`` about record ``id_``, once per process."""
    if id_ in _told:
        return
    if len(_told) >= MOST_TOLD:
        _told.clear()
    _told.add(id_)
    logger.warning(message, id_, *args)
