"""What a save or a delete of a model changes, for ``SITEMAPKIT_CHANGES``: which rows of
which model to record, read from the instance, without a query.

A section lists the rows of one model (its queryset's), and may declare in
``depends_on`` the models its entries also read: a ``lastmod`` of
``Max("comments__updated_at")``, a location of ``category__slug``. A row of
the section's model is recorded itself. A row of a model it depends on through
one foreign key to the section's model (a comment's ``article``) is recorded as
the row it points to, before and after the change; any other (an article's
``category``) is recorded as itself, and the refresh finds the section's rows
it reaches (``Watch.through``). The values a row's key had when it was loaded
(``post_init``) are kept, so a change that moves a row within its section's
order is recorded from where it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import Declaration, SitemapSource
from django_sitemapkit.sources.keyset import ordering_key
from django_sitemapkit.sources.plan import order_by

logger = logging.getLogger("django_sitemapkit")


def concrete(model: type[models.Model]) -> type[models.Model]:
    """The model whose table holds ``model``'s rows (a proxy's is its concrete model's)."""
    return model._meta.concrete_model or model


def label(model: type[models.Model]) -> str:
    """How a record names a model: its concrete model's ``app_label.model_name``."""
    return concrete(model)._meta.label_lower


@dataclass(frozen=True)
class Follow:
    """What a save or delete of an instance records: a row of ``target`` (a label)."""

    target: str
    #: The attribute of the instance holding the target row's primary key; ``None``:
    #: the instance is the target row.
    link: str | None
    #: The attributes whose values when loaded are kept: the section keys' columns
    #: (of the instance's own rows), or ``link``.
    kept: tuple[str, ...]
    #: Whether a save of the instance, given what was kept, changes other rows'
    #: entries too (``CASCADES``): then every row of the model is recorded.
    cascade: Callable[[models.Model, dict[str, Any]], bool] | None = None


#: ``(class, columns, reaches)`` of the engine's own source classes whose rows'
#: locations derive from other rows' (a Wagtail page's URL from its parent's):
#: ``columns`` are kept when loaded, and ``reaches(instance, kept)`` says whether
#: a save changed other rows' entries. Registered by the module that defines the
#: class (``wagtail/changes.py``), so that this one imports none of them.
CASCADES: list[tuple[type, tuple[str, ...], Callable[[models.Model, dict[str, Any]], bool]]] = []


@dataclass(frozen=True)
class SectionWatch:
    """A section's share of the records: its model, and the models it reads through a
    lookup, each with the lookup from the section's model."""

    section: str
    model: str
    through: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Watch:
    #: By concrete model: what a save or delete of one of its instances records.
    follows: dict[type[models.Model], list[Follow]] = field(default_factory=dict)
    sections: list[SectionWatch] = field(default_factory=list)

    #: ``of()`` and ``kept()`` of each model asked about.
    found: dict[type[models.Model], tuple[list[Follow], tuple[str, ...]]] = field(
        default_factory=dict
    )

    def of(self, sender: type[models.Model]) -> list[Follow]:
        """What a save or delete of a ``sender`` records: its own model's, and those of
        the models it inherits from (a Wagtail page type's rows are ``Page`` rows)."""
        return self.look_up(sender)[0]

    def kept(self, sender: type[models.Model]) -> tuple[str, ...]:
        return self.look_up(sender)[1]

    def look_up(self, sender: type[models.Model]) -> tuple[list[Follow], tuple[str, ...]]:
        known = self.found.get(sender)
        if known is None:
            models_ = [concrete(sender), *sender._meta.get_parent_list()]
            follows = [f for model in models_ for f in self.follows.get(model, [])]
            kept = tuple(dict.fromkeys(name for f in follows for name in f.kept))
            known = self.found[sender] = (follows, kept)
        return known

    def add(self, model: type[models.Model], follow: Follow) -> None:
        found = self.follows.setdefault(concrete(model), [])
        same = [f for f in found if (f.target, f.link) == (follow.target, follow.link)]
        if same:
            kept = tuple(dict.fromkeys((*same[0].kept, *follow.kept)))
            merged = Follow(follow.target, follow.link, kept, same[0].cascade or follow.cascade)
            found[found.index(same[0])] = merged
        else:
            found.append(follow)


def source_model(source: SitemapSource) -> type[models.Model] | None:
    """The model of a source's rows, if it can be told without a site: its declared
    ``queryset``'s, else ``get_queryset()``'s (``None`` if that needs a site)."""
    declared = Declaration(source)["queryset"]
    if isinstance(declared, models.QuerySet):
        return declared.model
    try:
        return source.get_queryset().model
    except Exception:  # any error: a queryset only a site gives
        return None


def related_model(model_or_label: Any) -> type[models.Model] | None:
    if isinstance(model_or_label, str):
        try:
            return apps.get_model(model_or_label)
        except (LookupError, ValueError):
            return None
    if isinstance(model_or_label, type) and issubclass(model_or_label, models.Model):
        return model_or_label
    return None


def reverse_link(model: type[models.Model], lookup: str) -> str | None:
    """The foreign key's attribute on the related model, when ``lookup`` is one step
    back along it to ``model`` (``"comments"``: ``Comment.article``)."""
    if "__" in lookup:
        return None
    try:
        relation = model._meta.get_field(lookup)
    except Exception:  # E110 names a lookup that is none
        return None
    if isinstance(relation, models.ManyToOneRel) and not relation.many_to_many:
        remote = relation.field
        if remote.target_field.primary_key:
            return str(remote.attname)
    return None


def dependencies(model: type[models.Model], declaration: Declaration) -> dict[Any, str]:
    """``depends_on``, and the relations ``images`` and ``videos`` read (a
    ``Related``): a new photo of an article changes the article's entry."""
    found: dict[Any, str] = {}
    for extension in ("images", "videos"):
        relation = getattr(declaration[extension], "relation", None)
        if isinstance(relation, str):
            try:
                related = model._meta.get_field(relation).related_model
            except FieldDoesNotExist:  # E028 names a relation that is none
                continue
            if isinstance(related, type):
                found[related] = relation
    found.update(dict(declaration["depends_on"] or {}))
    return found


def compile_watch() -> Watch:
    """What each model's changes record, for the registered sources."""
    watch = Watch()
    for source in registry.sections():
        if not isinstance(source, SitemapSource):
            continue
        model = source_model(source)
        if model is None:
            logger.warning(
                "Section %r: SITEMAPKIT_CHANGES cannot tell the model of its rows without a "
                "site (get_site_queryset()); declare queryset on the source, or call "
                "django_sitemapkit.changed() when its rows change.",
                source.name,
            )
            continue
        declaration = Declaration(source)
        key = ordering_key(model, order_by(declaration, model._default_manager.all())) or []
        columns = tuple(
            attname
            for column in key
            if column.name != "pk"
            # A plain column (keyset.is_plain_column), so a Field with an attname.
            and (attname := getattr(model._meta.get_field(column.name), "attname", None))
            and attname != model._meta.pk.attname
        )
        target = label(model)
        cascade = None
        for base, more, reaches in CASCADES:
            if isinstance(source, base):
                columns, cascade = (*columns, *more), reaches
        watch.add(model, Follow(target, None, columns, cascade))
        through: dict[str, str] = {}
        for related, lookup in dependencies(model, declaration).items():
            other = related_model(related)
            if other is None or not isinstance(lookup, str):
                continue  # E110 says which
            link = reverse_link(model, lookup)
            if link is not None:
                watch.add(other, Follow(target, link, (link,)))
            else:
                watch.add(other, Follow(label(other), None, ()))
                through[label(other)] = lookup
        watch.sections.append(SectionWatch(source.name, target, through))
    return watch
