"""The database-served index with and without the change record (the group ``fresh``):
``GET /sitemap.xml`` over the build table with ``SITEMAPKIT_CHANGES`` None (today's
index) or ``"record"``, in turns with the other mode (bench/turns.py).

``fresh-index-304-*`` carries the validators of a full answer made before the timing
and must be answered 304. ``fresh-index-full-*`` saves one row before each timed GET
(untimed: ``save()`` in a transaction, recorded by its ``post_save`` under
``"record"``), so that every timed index follows one change (the checked warm-up
none), as a crawler's does on a
site being edited; the first, untimed answer is what a running server has made
before.
"""

from __future__ import annotations

from django.db import transaction
from django.test.utils import override_settings
from django.urls import reverse
from django.utils import timezone

from bench.fresh_sets import clear_records
from bench.measuring import Case, Outcome, answer, streamed
from bench.models import Page
from bench.seeding import updated_at_for
from bench.sizes import PAGE_MAX, Plan
from bench.sources import make_request, register_bench_source, warm_process


class ChangesIndex:
    def __init__(self, plan: Plan, full: bool, mode: str | None) -> None:
        self.full = full
        self.mode = mode
        # A row in the middle of the table: its page's lastmod moves with each save.
        self.key = plan.build_rows // 2 + 1

    def setup(self) -> None:
        from django_sitemapkit import views

        register_bench_source(PAGE_MAX)
        # After the source is registered: the capture connects to the models it reads.
        self.settings = override_settings(SITEMAPKIT_CHANGES=self.mode)
        self.settings.enable()
        clear_records()
        self.view = views.index
        path = reverse("sitemapkit:index")
        self.request = make_request(path)
        warm_process()
        first = streamed(self.view(self.request))
        first.close()  # a full answer: what a running server has made before
        if not self.full:
            if not first.has_header("ETag"):
                raise RuntimeError("The sitemap index has no ETag.")
            validators = {"If-None-Match": first["ETag"]}
            if first.has_header("Last-Modified"):
                validators["If-Modified-Since"] = first["Last-Modified"]
            self.request = make_request(path, headers=validators)
        self.row = Page.objects.get(pk=self.key)

    def change(self) -> None:
        self.row.updated_at = timezone.now()
        with transaction.atomic():
            self.row.save()

    def run(self, check: bool) -> Outcome:
        # Not before the checked warm-up: its bytes, the index of the series, must be
        # the same in every child of the pair.
        if self.full and not check:
            self.change()
        return answer(self.view, self.request, self.full, check)

    def teardown(self) -> None:
        Page.objects.filter(pk=self.key).update(updated_at=updated_at_for(self.key))
        clear_records()
        self.settings.disable()


def index_case(plan: Plan, full: bool, mode: str | None) -> Case:
    return ChangesIndex(plan, full, mode)
