"""Values read from a relation of each row (:class:`Related`), one query per chunk of rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from django.db import models
from django.db.models import ForeignObjectRel
from django.db.models.fields.files import FileField

from django_sitemapkit.extensions.declarations import Related, Video


class RelatedQuery:
    """Reads a :class:`Related` declaration's values for a chunk of rows in one query."""

    def __init__(self, model: type[models.Model], related: Related, using: str) -> None:
        relation = model._meta.get_field(related.relation)
        if isinstance(relation, ForeignObjectRel):
            # A reverse relation: the field that points here lives on the related model.
            lookup = relation.field.name
        elif isinstance(relation, models.ManyToManyField):
            lookup = relation.related_query_name()
        else:
            raise TypeError(
                f"{model.__name__}.{related.relation} is not a reverse foreign key or a "
                "many-to-many relation"
            )
        self.related_model: type[models.Model] = relation.related_model
        self.lookup = lookup
        self.names = list(related.paths)
        self.paths = list(related.paths.values())
        self.using = using
        self.converters = [file_url_converter(self.related_model, path) for path in self.paths]

    def values(self, keys: Collection[Any]) -> dict[Any, list[tuple[Any, ...]]]:
        """The related values of each key, in the related model's order (or by primary key)."""
        found: dict[Any, list[tuple[Any, ...]]] = defaultdict(list)
        if not keys:
            return found
        manager = self.related_model._default_manager.using(self.using)
        ordering = list(self.related_model._meta.ordering or ["pk"])
        rows = (
            manager.filter(**{f"{self.lookup}__in": list(keys)})
            .order_by(self.lookup, *ordering)
            .values_list(self.lookup, *self.paths)
        )
        converters = self.converters
        for key, *values in rows:
            found[key].append(
                tuple(convert(value) for convert, value in zip(converters, values, strict=True))
            )
        return found


def file_url_converter(model: type[models.Model], path: str) -> Callable[[Any], Any]:
    """The storage URL for a ``FileField`` path (the column holds only the name)."""
    target: Any = model
    found: Any = None
    for name in path.split("__"):
        found = target._meta.get_field(name)
        target = found.related_model
    if isinstance(found, FileField):
        storage = found.storage
        return lambda name: storage.url(name) if name else None
    return lambda value: value


def related_images(values: Iterable[tuple[Any, ...]]) -> list[Any]:
    return [value for (value,) in values]


def related_videos(names: Sequence[str], values: Iterable[tuple[Any, ...]]) -> list[Any]:
    return [Video(**dict(zip(names, row, strict=True))) for row in values]
