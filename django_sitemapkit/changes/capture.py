"""Change capture (``SITEMAPKIT_CHANGES``): each save or delete of a row a section
reads is recorded in the saving transaction, and a refresh is asked for once the
transaction commits.

The record is written in the transaction (``records.write()``: the row's pending
record taken and written again, ``coalescing.py``), so a rolled-back change
records nothing and a committed one is on disk before any refresh could look: a
crash between the commit and the refresh loses nothing.
The refresh is asked for in ``transaction.on_commit``, once per transaction,
outside it (``schedule.py``). The receivers are connected once, at start-up or
when the setting changes; each reads the setting live.
"""

from __future__ import annotations

from typing import Any

from django.core.signals import setting_changed
from django.db import models
from django.db.models.signals import post_delete, post_init, post_save, pre_save

from django_sitemapkit.changes import records
from django_sitemapkit.changes.schedule import ask_refresh
from django_sitemapkit.changes.watch import Follow, Watch, compile_watch
from django_sitemapkit.conf import conf
from django_sitemapkit.registry import registry

#: The instance attribute that keeps the key's values as loaded. Outside any name a
#: model's field or property could take (they are identifiers).
KEPT = "_sitemapkit:loaded"
UID = "django_sitemapkit.changes"

_watch: tuple[tuple[int, ...], Watch] | None = None
_connected: set[type[models.Model]] = set()
_installed = False


def watch() -> Watch:
    """The watch of the registered sources, compiled again when they change."""
    global _watch
    sources = tuple(id(source) for source in registry.all())
    if _watch is None or _watch[0] != sources or (not _connected and _installed):
        _watch = (sources, compile_watch())
        connect_init(_watch[1])
    return _watch[1]


def install() -> None:
    """Connect the receivers (idempotent)."""
    global _installed
    _installed = True
    watch()


#: The receivers, each connected for the models it serves only: a ``post_delete``
#: receiver for every model would make Django read each row of every bulk
#: ``delete()`` first, and a ``post_init`` one would cost every instance made.
#: Each receiver, and whether it serves only the models with key values to keep.
RECEIVERS = (
    (post_save, "saved", False),
    (post_delete, "deleted", False),
    (pre_save, "saving", True),
    (post_init, "loaded", True),
)


def connect_init(found: Watch) -> None:
    """Connect each receiver for the models it serves, and for no other."""
    for signal, name, _ in RECEIVERS:
        for model in list(_connected):
            signal.disconnect(sender=model, dispatch_uid=f"{UID}.{name}")
    _connected.clear()
    if not _installed:
        return
    from django.apps import apps

    for model in apps.get_models(include_auto_created=False):
        for signal, name, keeping in RECEIVERS:
            if found.kept(model) if keeping else found.of(model):
                signal.connect(globals()[name], sender=model, dispatch_uid=f"{UID}.{name}")
                _connected.add(model)


def loaded(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    names = watch().kept(sender)
    values = instance.__dict__
    if all(name in values for name in names):  # a deferred column is not read
        values[KEPT] = {name: values[name] for name in names}


def saving(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    """An instance made in the code, not loaded (``post_init`` runs for both): what it
    was made with is not where the row was."""
    if instance._state.adding:
        instance.__dict__.pop(KEPT, None)


def saved(
    sender: type[models.Model],
    instance: models.Model,
    created: bool,
    using: str,
    **kwargs: Any,
) -> None:
    if conf.CHANGES is None:
        return
    follows = watch().of(sender)
    if follows:
        changes = [
            change for follow in follows for change in follow_rows(instance, follow, created)
        ]
        recorded(using, changes)
        # Now where it is: the next save of the same instance moves it from here.
        names = watch().kept(sender)
        instance.__dict__[KEPT] = {name: getattr(instance, name) for name in names}


def deleted(sender: type[models.Model], instance: models.Model, using: str, **kwargs: Any) -> None:
    if conf.CHANGES is None:
        return
    follows = watch().of(sender)
    if follows:
        changes = [
            change
            for follow in follows
            for change in follow_rows(instance, follow, created=False, gone=True)
        ]
        recorded(using, changes)


Row = tuple[str, Any, dict[str, Any] | str | None]


def follow_rows(
    instance: models.Model, follow: Follow, created: bool, gone: bool = False
) -> list[Row]:
    """The records a save (``created``: an insert) or, ``gone``, a delete of ``instance``
    makes for ``follow``."""
    kept = instance.__dict__.get(KEPT)
    if follow.link is not None:
        now = getattr(instance, follow.link)
        rows: list[Row] = [] if now is None else [(follow.target, now, None)]
        then = None if kept is None else kept.get(follow.link)
        if then is not None and then != now:
            rows.append((follow.target, then, None))
        return rows
    now_values = {name: getattr(instance, name) for name in follow.kept}
    rows = own_rows(instance, follow, kept, now_values, created, gone)
    cascade = follow.cascade
    if cascade is not None and not (created or gone) and (kept is None or cascade(instance, kept)):
        rows.append((follow.target, None, None))
    return rows


def own_rows(
    instance: models.Model,
    follow: Follow,
    kept: dict[str, Any] | None,
    now_values: dict[str, Any],
    created: bool,
    gone: bool,
) -> list[Row]:
    if gone:
        where = kept if kept is not None else now_values
        return [(follow.target, instance.pk, where or None)]
    if created or not follow.kept or kept == now_values:
        return [(follow.target, instance.pk, None)]
    if kept is None:
        # Saved without being loaded: where its key put it before is not known.
        return [(follow.target, instance.pk, records.UNKNOWN)]
    return [(follow.target, instance.pk, kept)]


def recorded(using: str, changes: list[Row]) -> None:
    if changes:
        records.write(using, changes)
        ask_refresh(using)


def setting_changes(setting: str, enter: bool, **kwargs: Any) -> None:
    """``override_settings(SITEMAPKIT_CHANGES=...)`` connects the receivers too."""
    if setting == "SITEMAPKIT_CHANGES" and conf.CHANGES is not None:
        install()


setting_changed.connect(setting_changes, dispatch_uid=f"{UID}.setting")
