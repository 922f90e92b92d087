"""The app's tables, used only with ``SITEMAPKIT_CHANGES`` (docs/changes.md).

``Change`` is the change record: one pending row per changed row a section
lists (a save replaces its row's pending record), written in the saving
transaction, so it commits or rolls back with the change and survives a crash
before the refresh. ``Refresh`` is
one row per project: whether a refresh is due, and how many records refreshes
have applied, which with the records still pending makes the version the
database-served index is validated by (``changes/records.py``).
"""

from __future__ import annotations

from django.db import models


class Change(models.Model):
    """A committed change to one row (or to every row) of a model a section reads."""

    id = models.BigAutoField(primary_key=True)
    #: ``app_label.model_name`` of the model whose row changed.
    model = models.CharField(max_length=200)
    #: The row's primary key as JSON (``sources/json_values.py``); ``NULL``: every row.
    row = models.TextField(null=True)  # noqa: DJ001  # NULL (every row) is not ""
    #: The first characters of ``row``, which the index of pending records holds
    #: (``changes/coalescing.py``); ``""`` when ``row`` is ``NULL``.
    row_prefix = models.CharField(max_length=64, null=True)  # noqa: DJ001  # NULL: before 0003
    #: The values of the section keys' columns before the change, as a JSON object,
    #: when they changed (the row moved), or an array of them when the record stands
    #: for several changes; ``NULL``: where it is now, or nowhere.
    before = models.TextField(null=True)  # noqa: DJ001  # NULL (not moved) is not ""
    #: The committed changes the record stands for: one, and those of the records of
    #: its row it replaced (``changes/coalescing.py``). The version adds them up.
    saves = models.BigIntegerField(default=1, db_default=1)
    #: The id of the first record it replaced, directly or not; ``NULL``: none.
    first = models.BigIntegerField(null=True)
    at = models.DateTimeField(auto_now_add=True)
    #: When a refresh applied it; ``NULL``: pending. An applied record is kept a
    #: while (``records.KEEP_APPLIED``), so that the index served from the database
    #: can still read which rows changed since it last read them.
    applied = models.DateTimeField(null=True)

    class Meta:
        db_table = "sitemapkit_change"
        # The version counts the pending records (applied IS NULL) on every index
        # request, and a refresh deletes those applied an hour ago: both by this.
        # A save finds its row's pending record by the third.
        indexes = [
            models.Index(fields=["applied"], name="sitemapkit_change_applied"),
            models.Index(fields=["model", "applied", "row_prefix"], name="sitemapkit_change_rows"),
        ]
        verbose_name = "sitemap change"

    def __str__(self) -> str:
        return f"{self.model} {self.row if self.row is not None else '(every row)'}"


class Refresh(models.Model):
    """The project's refresh: when one is due, and what refreshes have applied."""

    name = models.CharField(max_length=100, primary_key=True)
    #: When the scheduled refresh runs, or until when the running one holds it;
    #: ``NULL``: none is scheduled.
    due = models.DateTimeField(null=True)
    #: Records applied (and deleted) by refreshes, ever.
    applied = models.BigIntegerField(default=0)

    class Meta:
        db_table = "sitemapkit_refresh"
        verbose_name = "sitemap refresh"

    def __str__(self) -> str:
        return self.name
