"""The entries of the group ``floor`` in bench/table.py's table: this package's page
view and the cursor floor (bench/floors.py) over the same ``--rows`` page, run in
turns (bench/turns.py: several children each, the order reversed every round), so
that their ratio, in CPU too, is of paired runs on a shared machine."""

from __future__ import annotations

from bench.specs import TURNS, CaseSpec, serving_page

#: The group ``--cases floor``.
FLOOR_GROUP = "floor"
#: The ratios the report prints besides time's: ours over the floor, in CPU.
FLOOR_RATIOS = (
    ("floor-ours", "floor-cursor", "CPU"),
    ("floor-ours", "floor-cursor", "CPU with the database server"),
)


def floor_cases() -> tuple[CaseSpec, ...]:
    """The floor first: the report divides by it."""
    turns = {"run": TURNS, "groups": (FLOOR_GROUP,), "serves_page": True}
    return (
        CaseSpec(
            "floor-cursor",
            "the cursor floor, in turns with floor-ours",
            "bench.floors:cursor_floor",
            serving_page,
            bytes_of_ours="floor",
            **turns,
        ),
        CaseSpec(
            "floor-ours",
            "this package's page view, streamed, in turns with floor-cursor",
            "bench.serving_cases:ours",
            serving_page,
            **turns,
        ),
    )
