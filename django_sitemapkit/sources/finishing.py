"""The finishing step of each of the engine's own source classes, run on the plan
compiled from a source of that class (``django_sitemapkit.wagtail`` writes the rows
of some page types from their own method). Registered by the module that defines
the class, so that ``plan.py`` imports none of them; a project's sources have none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django_sitemapkit.locations.policy import LocationPolicy

CompiledPlan = TypeVar("CompiledPlan")

#: ``(class, step)``: ``step(plan, policy)`` returns the plan of a source of ``class``.
FINISHERS: list[tuple[type, Callable[[Any, LocationPolicy], Any]]] = []


def finished(source: object, plan: CompiledPlan, policy: LocationPolicy) -> CompiledPlan:
    for base, finish in FINISHERS:
        if isinstance(source, base):
            plan = finish(plan, policy)
    return plan
