"""Checks of the settings of pre-rendered files (checks/files.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks import check_settings


@pytest.mark.parametrize("value", [1_024, 52_428_800])
def test_e018_max_bytes_in_range(value: int) -> None:
    with override_settings(SITEMAPKIT_MAX_BYTES=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", [1_023, 52_428_801, 0, -1, "1024", 1024.0, True, None])
def test_e018_max_bytes(value: object) -> None:
    with override_settings(SITEMAPKIT_MAX_BYTES=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_MAX_BYTES is {value!r}, not a whole number from 1,024 to 52,428,800.",
                hint="Set SITEMAPKIT_MAX_BYTES to a number of bytes from 1024 to 52428800 "
                "(the protocol's 50 MiB), or remove it.",
                id="sitemapkit.E018",
            )
        ]


@pytest.mark.parametrize("value", [None, "/srv/sitemaps", Path("/srv/sitemaps")])
def test_e019_output_dir_absolute(value: object) -> None:
    with override_settings(SITEMAPKIT_OUTPUT_DIR=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", [42, b"/srv/sitemaps", ["/srv/sitemaps"]])
def test_e019_output_dir_not_a_path(value: object) -> None:
    with override_settings(SITEMAPKIT_OUTPUT_DIR=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_OUTPUT_DIR is {value!r}, not a path.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path of a directory, as a str "
                "or a pathlib.Path, or to None.",
                id="sitemapkit.E019",
            )
        ]


@pytest.mark.parametrize("value", ["sitemaps", "./public/sitemaps", Path("sitemaps"), ""])
def test_e019_output_dir_relative(value: object) -> None:
    with override_settings(SITEMAPKIT_OUTPUT_DIR=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_OUTPUT_DIR is {value!r}, a relative path, which would change with "
                "the working directory.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to an absolute path, such as "
                "BASE_DIR / 'sitemaps'.",
                id="sitemapkit.E019",
            )
        ]


@pytest.mark.parametrize("value", [None, "default", "staticfiles"])
def test_e020_storage_alias(value: str | None) -> None:
    with override_settings(SITEMAPKIT_STORAGE=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", ["sitemaps", "", 42, ["default"]])
def test_e020_storage_not_an_alias(value: object) -> None:
    with override_settings(SITEMAPKIT_STORAGE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_STORAGE is {value!r}, not an alias of STORAGES "
                "['default', 'staticfiles'].",
                hint="Set SITEMAPKIT_STORAGE to one of the STORAGES aliases (add one for the "
                "sitemap files if needed), or to None.",
                id="sitemapkit.E020",
            )
        ]


@override_settings(SITEMAPKIT_OUTPUT_DIR="/srv/sitemaps", SITEMAPKIT_STORAGE="default")
def test_e021_output_dir_and_storage() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_OUTPUT_DIR ('/srv/sitemaps') and SITEMAPKIT_STORAGE ('default') are "
            "both set.",
            hint="Set one of them to None: SITEMAPKIT_OUTPUT_DIR to use a local directory, "
            "SITEMAPKIT_STORAGE to use a storage.",
            id="sitemapkit.E021",
        )
    ]


@override_settings(SITEMAPKIT_GZIP="yes", SITEMAPKIT_GZIP_LINKS=1)
def test_e022_gzip_settings_not_booleans() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_GZIP is 'yes', not True or False.",
            hint="Set SITEMAPKIT_GZIP = True to write a .xml.gz file next to every file, or "
            "False to write none.",
            id="sitemapkit.E022",
        ),
        Error(
            "SITEMAPKIT_GZIP_LINKS is 1, not True or False.",
            hint="Set SITEMAPKIT_GZIP_LINKS = True to name the .xml.gz files in the index, or "
            "False to name the .xml files.",
            id="sitemapkit.E022",
        ),
    ]


@pytest.mark.parametrize(("gzip", "links"), [(True, True), (True, False), (False, False)])
def test_e023_gzip_links_with_gzip(gzip: bool, links: bool) -> None:
    with override_settings(SITEMAPKIT_GZIP=gzip, SITEMAPKIT_GZIP_LINKS=links):
        assert check_settings() == []


@override_settings(SITEMAPKIT_GZIP=False, SITEMAPKIT_GZIP_LINKS=True)
def test_e023_gzip_links_without_gzip() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_GZIP_LINKS is True while SITEMAPKIT_GZIP is False, so the index would "
            "name .xml.gz files that build_sitemaps does not write.",
            hint="Set SITEMAPKIT_GZIP = True, or SITEMAPKIT_GZIP_LINKS = False.",
            id="sitemapkit.E023",
        )
    ]


@pytest.mark.parametrize("value", [1, 7, 9])
def test_e113_gzip_level_in_range(value: int) -> None:
    with override_settings(SITEMAPKIT_GZIP_LEVEL=value):
        assert check_settings() == []


# 0 is zlib's "stored" (no compression at all), -1 its alias of its default level.
@pytest.mark.parametrize("value", [0, 10, -1, "7", 7.0, True, None])
def test_e113_gzip_level(value: object) -> None:
    with override_settings(SITEMAPKIT_GZIP_LEVEL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_GZIP_LEVEL is {value!r}, not a whole number from 1 to 9.",
                hint="Set SITEMAPKIT_GZIP_LEVEL to a whole number from 1 (fastest) to 9 "
                "(smallest), such as 7 (the default), or remove it.",
                id="sitemapkit.E113",
            )
        ]


@override_settings(SITEMAPKIT_GZIP=False, SITEMAPKIT_GZIP_LINKS=True, SITEMAPKIT_GZIP_LEVEL=0)
def test_e113_after_the_gzip_flags() -> None:
    assert [error.id for error in check_settings()] == ["sitemapkit.E023", "sitemapkit.E113"]


@pytest.mark.parametrize("value", ["file", "Files", "", None, ["files"]])
def test_e024_serve(value: object) -> None:
    with override_settings(SITEMAPKIT_SERVE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_SERVE is {value!r}, not one of 'database', 'files', "
                "'files-or-database'.",
                hint="Set SITEMAPKIT_SERVE to 'database' (the default), 'files' or "
                "'files-or-database'.",
                id="sitemapkit.E024",
            )
        ]


@pytest.mark.parametrize(
    "place",
    [{"SITEMAPKIT_OUTPUT_DIR": "/srv/sitemaps"}, {"SITEMAPKIT_STORAGE": "default"}],
)
@pytest.mark.parametrize("value", ["database", "files", "files-or-database"])
def test_e025_serving_files_with_a_place_to_read(value: str, place: dict[str, str]) -> None:
    with override_settings(SITEMAPKIT_SERVE=value, **place):
        assert check_settings() == []


@pytest.mark.parametrize("value", ["files", "files-or-database"])
def test_e025_serving_files_from_nowhere(value: str) -> None:
    with override_settings(SITEMAPKIT_SERVE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_SERVE is {value!r} but neither SITEMAPKIT_OUTPUT_DIR nor "
                "SITEMAPKIT_STORAGE is set, so there are no files to serve.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path build_sitemaps writes to, "
                "or SITEMAPKIT_STORAGE to a STORAGES alias; or set SITEMAPKIT_SERVE = "
                "'database'.",
                id="sitemapkit.E025",
            )
        ]


@pytest.mark.parametrize(
    ("setting", "value", "check_id"),
    [
        ("SITEMAPKIT_MAX_BYTES", 100, "E018"),
        ("SITEMAPKIT_OUTPUT_DIR", "sitemaps", "E019"),
        ("SITEMAPKIT_STORAGE", "sitemaps", "E020"),
        ("SITEMAPKIT_GZIP", "no", "E022"),
        ("SITEMAPKIT_GZIP_LEVEL", 0, "E113"),
        ("SITEMAPKIT_SERVE", "file", "E024"),
        ("SITEMAPKIT_SERVE", "files", "E025"),
    ],
)
def test_file_settings_checks_are_registered(setting: str, value: object, check_id: str) -> None:
    with (
        override_settings(**{setting: value}),
        pytest.raises(SystemCheckError, match=rf"\(sitemapkit\.{check_id}\) {setting} is "),
    ):
        call_command("check")


@override_settings(
    SITEMAPKIT_OUTPUT_DIR="/srv/sitemaps",
    SITEMAPKIT_STORAGE="default",
    SITEMAPKIT_GZIP=False,
    SITEMAPKIT_GZIP_LINKS=True,
)
def test_combination_checks_are_registered() -> None:
    with pytest.raises(SystemCheckError) as info:
        call_command("check")
    assert "(sitemapkit.E021) SITEMAPKIT_OUTPUT_DIR ('/srv/sitemaps')" in str(info.value)
    assert "(sitemapkit.E023) SITEMAPKIT_GZIP_LINKS is True" in str(info.value)
