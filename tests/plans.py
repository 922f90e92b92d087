"""Reading a source through its plan, as the views and the build do, for the tests."""

from __future__ import annotations

from typing import Any

from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.pages import QueryPager
from django_sitemapkit.sources.plan import Plan, compile_plan


def all_rows(plan: Plan) -> list[Any]:
    return [row for _, chunk in plan.pager.numbered_chunks() for row in chunk]


def page_rows(plan: Plan, page: int, start: tuple[Any, ...] | None = None) -> list[Any]:
    return [row for chunk in plan.pager.chunks(page, start) for row in chunk]


def entries_of(source: BaseSource) -> list[Entry]:
    """Every entry of every page of ``source``, in order, invalid rows skipped and logged."""
    plan = compile_plan(source)
    entries: list[Entry] = []
    for _, chunk in plan.pager.numbered_chunks():
        with plan.context():
            entries += plan.writer.entries(chunk)
    return entries


def query_pager(plan: Plan) -> QueryPager:
    assert isinstance(plan.pager, QueryPager), plan.pager
    return plan.pager
