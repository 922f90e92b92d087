"""The checks the settings table writes (checks/setting_values.py); each one's
messages are tested with its subject (test_checks_settings.py, _files, _indexnow,
_distributed, _hosts)."""

from __future__ import annotations

import pytest
from django.core.checks import Error
from django.test import override_settings

from django_sitemapkit.checks.setting_values import FINDINGS, check_values
from django_sitemapkit.conf import TABLE


def test_every_setting_with_a_rule_has_a_finding_and_no_other() -> None:
    assert list(FINDINGS) == [name for name, row in TABLE.items() if row.rule is not None]


@pytest.mark.parametrize("name", FINDINGS)
def test_a_refused_value_is_one_error_naming_it(name: str) -> None:
    value = object()
    with override_settings(**{TABLE[name].setting: value}):
        (error,) = check_values(name)
    assert isinstance(error, Error)
    assert error.msg.startswith(f"SITEMAPKIT_{name} is {value!r}, not ")
    assert error.id == FINDINGS[name].id


def test_the_defaults_pass() -> None:
    assert check_values(*FINDINGS) == []
