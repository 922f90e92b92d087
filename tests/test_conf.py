"""The settings table (conf.py): each setting read live, typed as the table says."""

from __future__ import annotations

import datetime as dt
import os
import types
import typing
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from django_sitemapkit import conf as conf_module
from django_sitemapkit.conf import TABLE, Settings, conf
from django_sitemapkit.setting_rows import Setting

ROWS = pytest.mark.parametrize("row", TABLE.values(), ids=lambda row: row.name)


def test_the_table_is_every_setting_of_the_class_in_its_order() -> None:
    assert list(TABLE) == list(Settings.defaults)
    assert list(TABLE)[:3] == ["BASE_URL", "SITES", "SITE_SCHEME"]
    assert len(TABLE) == 35
    assert all(TABLE[name].name == name for name in TABLE)
    assert Settings.LIMIT is TABLE["LIMIT"]


@ROWS
def test_a_setting_left_unset_is_its_default(row: Setting[object]) -> None:
    with override_settings():
        # The test settings set some (SITEMAPKIT_BASE_URL): unset each here.
        delattr(settings, row.setting)
        assert getattr(conf, row.name) == row.default == conf.raw(row.name)


@ROWS
def test_a_setting_is_read_live(row: Setting[object]) -> None:
    value = object()
    before = conf.raw(row.name)
    with override_settings(**{row.setting: value}):
        assert getattr(conf, row.name) is value
        assert conf.raw(row.name) is value
    assert getattr(conf, row.name) == before


def test_typed_values_pass_through() -> None:
    with override_settings(
        SITEMAPKIT_LIMIT=10,
        SITEMAPKIT_OUTPUT_DIR=Path("/srv/sitemaps"),
        SITEMAPKIT_SHARD_TIMEOUT=dt.timedelta(minutes=1),
    ):
        # Typed as the table annotates them, for mypy.
        limit: int = conf.LIMIT
        output_dir: str | os.PathLike[str] | None = conf.OUTPUT_DIR
        timeout: dt.timedelta = conf.SHARD_TIMEOUT
    assert (limit, output_dir, timeout) == (10, Path("/srv/sitemaps"), dt.timedelta(minutes=1))


def test_an_unknown_name_is_refused() -> None:
    with pytest.raises(KeyError):
        conf.raw("LIMITS")


HINTS = typing.get_type_hints(Settings)


@ROWS
def test_the_annotation_is_the_documented_type(row: Setting[object]) -> None:
    """mypy reads the annotation, docs/settings.md the row's type_hint (test_docs.py):
    both name one type."""
    (annotated,) = typing.get_args(HINTS[row.name])
    assert annotated == eval(row.type_hint, vars(conf_module))


def runtime_types(hint: object) -> tuple[type, ...]:
    """The classes of a type, for isinstance(): ``Mapping[str, str]`` as ``Mapping``."""
    members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return tuple(typing.get_origin(member) or member for member in members)


@ROWS
def test_the_default_is_of_its_type_and_follows_its_rule(row: Setting[object]) -> None:
    assert isinstance(row.default, runtime_types(eval(row.type_hint, vars(conf_module))))
    assert row.rule is None or row.rule.accepts(row.default)
