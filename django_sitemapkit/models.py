"""The app's tables, used only with ``SITEMAPKIT_CHANGES`` (docs/changes.md).

``Change`` is the change record: one row per committed save or delete of a
row a section lists, written in the saving transaction, so it commits or rolls
back with the change and survives a crash before the refresh. ``Refresh`` is
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
    #: The values of the section keys' columns before the change, as a JSON object,
    #: when they changed (the row moved); ``NULL``: where it is now, or nowhere.
    before = models.TextField(null=True)  # noqa: DJ001  # NULL (not moved) is not ""
    at = models.DateTimeField(auto_now_add=True)
    #: When a refresh applied it; ``NULL``: pending. An applied record is kept a
    #: while (``records.KEEP_APPLIED``), so that the index served from the database
    #: can still read which rows changed since it last read them.
    applied = models.DateTimeField(null=True)

    class Meta:
        db_table = "sitemapkit_change"
        # The version counts the pending records (applied IS NULL) on every index
        # request, and a refresh deletes those applied an hour ago: both by this.
        indexes = [models.Index(fields=["applied"], name="sitemapkit_change_applied")]
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
