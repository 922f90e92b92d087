"""The checks package: its entry points together, and their registration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks import (
    check_settings,
    check_sources,
    check_urls,
)

TESTS = Path(__file__).parent


def test_valid_configuration_has_no_messages() -> None:
    assert check_settings() == []
    assert check_sources() == []
    assert check_urls() == []


@override_settings(SITEMAPKIT_BASE_URL="ftp://www.example.com")
def test_checks_are_registered() -> None:
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E002"):
        call_command("check")


@pytest.mark.slow
def test_manage_py_check_fails_on_a_bad_setting() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(TESTS),
        "DJANGO_SETTINGS_MODULE": "settings_bad_base_url",
    }
    result = subprocess.run(
        [sys.executable, "-m", "django", "check"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        "?: (sitemapkit.E002) SITEMAPKIT_BASE_URL is not an absolute http or https URL: "
        "'ftp://www.example.com'." in result.stderr
    )
    assert "System check identified 1 issue (0 silenced)." in result.stderr
