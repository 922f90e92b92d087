"""System checks of the settings of pre-rendered files: their size, where
``build_sitemaps`` writes them, gzip, and how they are served.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.core.checks import CheckMessage, Error

from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.conf import conf


def check_file_settings() -> list[CheckMessage]:
    """The settings of pre-rendered files: their size, where they go, gzip, serving."""
    return (
        check_values("MAX_BYTES")
        + check_output_dir()
        + check_storage()
        + check_one_destination()
        + check_gzip()
        + check_serve()
        + check_values("FULL_BUILD_EVERY")
        + check_values("MAX_REMOVED")
    )


def check_output_dir() -> list[CheckMessage]:
    """E019: a relative path; a value that is no path is the table's (``setting_values``)."""
    errors = check_values("OUTPUT_DIR")
    value = conf.OUTPUT_DIR
    if errors or value is None or os.path.isabs(os.fspath(value)):
        return errors
    return [
        Error(
            f"SITEMAPKIT_OUTPUT_DIR is {value!r}, a relative path, which would change with "
            "the working directory.",
            hint="Set SITEMAPKIT_OUTPUT_DIR to an absolute path, such as BASE_DIR / 'sitemaps'.",
            id="sitemapkit.E019",
        )
    ]


def check_storage() -> list[CheckMessage]:
    value = conf.raw("STORAGE")
    if value is None or (isinstance(value, str) and value in settings.STORAGES):
        return []
    return [
        Error(
            f"SITEMAPKIT_STORAGE is {value!r}, not an alias of STORAGES "
            f"{list(settings.STORAGES)!r}.",
            hint="Set SITEMAPKIT_STORAGE to one of the STORAGES aliases (add one for the "
            "sitemap files if needed), or to None.",
            id="sitemapkit.E020",
        )
    ]


def check_one_destination() -> list[CheckMessage]:
    output_dir, storage = conf.raw("OUTPUT_DIR"), conf.raw("STORAGE")
    if output_dir is None or storage is None:
        return []
    return [
        Error(
            f"SITEMAPKIT_OUTPUT_DIR ({output_dir!r}) and SITEMAPKIT_STORAGE ({storage!r}) are "
            "both set.",
            hint="Set one of them to None: SITEMAPKIT_OUTPUT_DIR to use a local directory, "
            "SITEMAPKIT_STORAGE to use a storage.",
            id="sitemapkit.E021",
        )
    ]


def check_gzip() -> list[CheckMessage]:
    # The level is judged on its own, after the flags: E023 reads only the flags.
    return check_gzip_flags() + check_values("GZIP_LEVEL")


def check_gzip_flags() -> list[CheckMessage]:
    errors = check_values("GZIP", "GZIP_LINKS")
    if errors or not (conf.GZIP_LINKS and not conf.GZIP):
        return errors
    return [
        Error(
            f"SITEMAPKIT_GZIP_LINKS is {conf.GZIP_LINKS!r} while SITEMAPKIT_GZIP is "
            f"{conf.GZIP!r}, so the index would name .xml.gz files that build_sitemaps "
            "does not write.",
            hint="Set SITEMAPKIT_GZIP = True, or SITEMAPKIT_GZIP_LINKS = False.",
            id="sitemapkit.E023",
        )
    ]


def check_serve() -> list[CheckMessage]:
    errors = check_values("SERVE")
    if errors:
        return errors
    value = conf.SERVE
    has_destination = conf.raw("OUTPUT_DIR") is not None or conf.raw("STORAGE") is not None
    if value == "database" or has_destination:
        return []
    return [
        Error(
            f"SITEMAPKIT_SERVE is {value!r} but neither SITEMAPKIT_OUTPUT_DIR nor "
            "SITEMAPKIT_STORAGE is set, so there are no files to serve.",
            hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path build_sitemaps writes to, or "
            "SITEMAPKIT_STORAGE to a STORAGES alias; or set SITEMAPKIT_SERVE = 'database'.",
            id="sitemapkit.E025",
        )
    ]
