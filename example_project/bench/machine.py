"""What the report says of the machine a run measured: its CPU, the versions, the
package's commit and the load average."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import django
import django_sitemapkit


def facts(revision: str, database: str, load_start: float, load_end: float) -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "django_sitemapkit": revision,
        "database": database,
        "platform": platform.platform(),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average_start": load_start,
        "load_average_end": load_end,
    }


def package_revision() -> str:
    """The commit of the measured package's checkout, and whether its files differ from it.

    The package is installed editable: the benchmark measures the working tree.
    """
    root = Path(django_sitemapkit.__file__).resolve().parent
    try:
        commit = git(root, "rev-parse", "--short", "HEAD")
        changed = git(root, "status", "--porcelain", "--", ".")
    except (OSError, subprocess.CalledProcessError):
        return "(not a git checkout)"
    return f"{commit} with uncommitted changes" if changed else commit


def git(directory: Path, *arguments: str) -> str:
    finished = subprocess.run(
        ["git", "-C", str(directory), *arguments], capture_output=True, text=True, check=True
    )
    return finished.stdout.strip()


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
