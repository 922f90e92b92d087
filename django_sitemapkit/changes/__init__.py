"""Fresh on commit (``SITEMAPKIT_CHANGES``, docs/changes.md): which rows changed,
recorded in the transaction that changed them, for a refresh to render.

``changed()`` records what no signal tells: ``QuerySet.update()``, raw SQL,
another service writing the database.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models, router


def changed(
    rows: models.QuerySet[Any] | models.Model | Iterable[models.Model] | type[models.Model],
    *,
    using: str | None = None,
) -> int:
    """Record that ``rows`` changed where no ``post_save`` said so, in the current
    transaction (it commits or rolls back with it); return the changes recorded
    (one a row; one for a model class), each joining its row's pending record.

    ``rows`` is a queryset (each row it holds now: call it after an ``update()``
    that kept the rows where the sections order them), a model instance or several,
    or a model class: every row, whose sections the next refresh renders again
    whole (after an ``update()`` that changed an ordering column, or a bulk
    delete without signals).
    """
    # Here, not at the top: the package is imported before the app registry is
    # ready (INSTALLED_APPS), and the records are a model.
    from django_sitemapkit.changes import records
    from django_sitemapkit.changes.schedule import ask_refresh
    from django_sitemapkit.changes.watch import label

    if isinstance(rows, type) and issubclass(rows, models.Model):
        alias = using or router.db_for_write(rows)
        count = records.write(alias, [(label(rows), None, None)])
    elif isinstance(rows, models.QuerySet):
        alias = using or router.db_for_write(rows.model)
        name = label(rows.model)
        count = records.write(alias, [(name, pk, None) for pk in rows.values_list("pk", flat=True)])
    else:
        instances = [rows] if isinstance(rows, models.Model) else list(rows)
        if not instances:
            return 0
        alias = using or router.db_for_write(type(instances[0]), instance=instances[0])
        count = records.write(alias, [(label(type(i)), i.pk, None) for i in instances])
    if count:
        ask_refresh(alias)
    return count


__all__ = ["changed"]
