"""System checks of fresh on commit (docs/changes.md): the ``SITEMAPKIT_CHANGES*``
settings (E110, E111), each source's ``depends_on`` (E112), and a source whose rows'
model the capture cannot tell (W060)."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from django_sitemapkit.changes.watch import concrete, related_model, source_model
from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.conf import conf
from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import Declaration, SitemapSource


def check_changes(**kwargs: Any) -> list[CheckMessage]:
    errors = check_values("CHANGES", "CHANGES_DELAY")
    for source in registry.all():
        if isinstance(source, SitemapSource):
            errors += check_depends_on(source)
            if conf.raw("CHANGES") is not None and not errors:
                errors += check_model_known(source)
    return errors


def reached(model: type[models.Model], lookup: str) -> type[models.Model] | None:
    """The model ``lookup`` reaches from ``model`` through relations, or ``None``."""
    current = model
    for part in lookup.split("__"):
        try:
            field = current._meta.get_field(part)
        except FieldDoesNotExist:
            return None
        related = field.related_model
        if not isinstance(related, type):
            return None
        current = related
    return current


def depends_on_problem(model: type[models.Model], related: object, lookup: object) -> str | None:
    other = related_model(related)
    if other is None:
        return f"{related!r}, which is neither a model nor an installed model's label"
    if not isinstance(lookup, str) or not lookup:
        return f"{related!r}: {lookup!r}, whose lookup is not a field path"
    found = reached(model, lookup)
    if found is None or concrete(found) is not concrete(other):
        reaches = "no model" if found is None else found._meta.label
        return (
            f"{related!r}: {lookup!r}, a lookup from {model._meta.label} that reaches "
            f"{reaches}, not {other._meta.label}"
        )
    return None


def check_depends_on(source: SitemapSource) -> list[CheckMessage]:
    declared = Declaration(source)["depends_on"]
    if not declared:
        return []
    hint = (
        "Map each model the entries read (the class, or 'app_label.ModelName') to the "
        "lookup from the source's model to it, as a filter() takes it: "
        "depends_on = {Comment: 'comments'}."
    )
    if not hasattr(declared, "items"):
        return [
            Error(
                f"{describe(source)} declares depends_on {declared!r}, not a dict.",
                hint=hint,
                obj=type(source),
                id="sitemapkit.E112",
            )
        ]
    model = source_model(source)
    if model is None:
        return []  # W060 says why the capture cannot follow the source
    return [
        Error(
            f"{describe(source)} declares depends_on {problem}.",
            hint=hint,
            obj=type(source),
            id="sitemapkit.E112",
        )
        for related, lookup in declared.items()
        if (problem := depends_on_problem(model, related, lookup)) is not None
    ]


def check_model_known(source: SitemapSource) -> list[CheckMessage]:
    if source_model(source) is not None:
        return []
    return [
        Warning(
            f"{describe(source)} declares no queryset, and its get_queryset() needs a site: "
            "SITEMAPKIT_CHANGES cannot tell which model's changes are its own, so none is "
            "recorded for it, and it is fresh only after a build that compares it.",
            hint="Declare queryset = Model.objects.all() on the source (get_site_queryset() "
            "may still filter it), or call django_sitemapkit.changed() when its rows change.",
            obj=type(source),
            id="sitemapkit.W060",
        )
    ]
