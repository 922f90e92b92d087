"""System checks of the settings of pre-rendered files: their size, where
``build_sitemaps`` writes them, gzip, and how they are served.
"""

from __future__ import annotations

import datetime as dt
import os

from django.conf import settings
from django.core.checks import CheckMessage, Error

from django_sitemapkit.conf import MAX_BYTES, SERVE_CHOICES, conf

# The smallest SITEMAPKIT_MAX_BYTES: room for the XML declaration, the root
# element and a few entries.
SMALLEST_MAX_BYTES = 1_024


def check_file_settings() -> list[CheckMessage]:
    """The settings of pre-rendered files: their size, where they go, gzip, serving."""
    return (
        check_max_bytes()
        + check_output_dir()
        + check_storage()
        + check_one_destination()
        + check_gzip()
        + check_serve()
        + check_full_build_every()
    )


def check_full_build_every() -> list[CheckMessage]:
    value = conf.raw("FULL_BUILD_EVERY")
    if value is None or (isinstance(value, dt.timedelta) and value >= dt.timedelta(0)):
        return []
    return [
        Error(
            f"SITEMAPKIT_FULL_BUILD_EVERY is {value!r}, not a timedelta of 0 or more, or None.",
            hint="Set it to a datetime.timedelta such as timedelta(days=1) (how often a build "
            "renders every shard), to None to do so only with build_sitemaps --full, or remove it.",
            id="sitemapkit.E047",
        )
    ]


def check_max_bytes() -> list[CheckMessage]:
    value = conf.raw("MAX_BYTES")
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and SMALLEST_MAX_BYTES <= value <= MAX_BYTES
    ):
        return []
    return [
        Error(
            f"SITEMAPKIT_MAX_BYTES is {value!r}, not a whole number from "
            f"{SMALLEST_MAX_BYTES:,} to {MAX_BYTES:,}.",
            hint=f"Set SITEMAPKIT_MAX_BYTES to a number of bytes from {SMALLEST_MAX_BYTES} to "
            f"{MAX_BYTES} (the protocol's 50 MiB), or remove it.",
            id="sitemapkit.E018",
        )
    ]


def check_output_dir() -> list[CheckMessage]:
    value = conf.raw("OUTPUT_DIR")
    if value is None:
        return []
    path = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(path, str):
        return [
            Error(
                f"SITEMAPKIT_OUTPUT_DIR is {value!r}, not a path.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path of a directory, as a str "
                "or a pathlib.Path, or to None.",
                id="sitemapkit.E019",
            )
        ]
    if os.path.isabs(path):
        return []
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
    errors: list[CheckMessage] = []
    hints = {
        "GZIP": "Set SITEMAPKIT_GZIP = True to write a .xml.gz file next to every file, or "
        "False to write none.",
        "GZIP_LINKS": "Set SITEMAPKIT_GZIP_LINKS = True to name the .xml.gz files in the "
        "index, or False to name the .xml files.",
    }
    for name, hint in hints.items():
        value = conf.raw(name)
        if not isinstance(value, bool):
            errors.append(
                Error(
                    f"SITEMAPKIT_{name} is {value!r}, not True or False.",
                    hint=hint,
                    id="sitemapkit.E022",
                )
            )
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
    value = conf.raw("SERVE")
    if value not in SERVE_CHOICES or not isinstance(value, str):
        return [
            Error(
                f"SITEMAPKIT_SERVE is {value!r}, not one of {', '.join(map(repr, SERVE_CHOICES))}.",
                hint="Set SITEMAPKIT_SERVE to 'database' (the default), 'files' or "
                "'files-or-database'.",
                id="sitemapkit.E024",
            )
        ]
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
