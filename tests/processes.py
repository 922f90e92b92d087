"""``manage.py`` in a process of its own, for real exit codes and output streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent
EXAMPLE_DIR = TESTS.parent / "example_project"
# Environment variables the example project (or Python) reads that must come
# from the test that runs it, never from the suite's environment: the suite's
# settings module and tests/ on the path, the database choice (a PostgreSQL pass
# of CI sets PGHOST and friends; EXAMPLE_DATABASE alone decides), the serving mode.
CHILD_ENV_DROPPED = (
    "DJANGO_SETTINGS_MODULE",
    "PYTHONPATH",
    "PYTHONSAFEPATH",
    "PYTHONSTARTUP",
    "EXAMPLE_DATABASE",
    "SITEMAPKIT_BASE_URL",
    "SITEMAPKIT_SERVE",
    "SITEMAPKIT_OUTPUT_DIR",
)

#: coverage.py's variables, with which a Python process measures itself (``patch`` in
#: pyproject.toml's [tool.coverage.run] passes them on to every process the suite
#: starts): left out of the environment of a process that runs none of this
#: package's code worth measuring, whose measuring would only cost CPU.
COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


def unmeasured(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` without coverage.py's variables (``COVERAGE_VARIABLES``)."""
    return {key: value for key, value in environ.items() if key not in COVERAGE_VARIABLES}


def manage(
    *args: str, settings: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``manage.py <args>``; ``settings`` names a ``tests/settings_<name>.py`` to use
    instead of ``tests/settings.py``, ``env`` adds to the environment."""
    module = "settings" if settings is None else f"settings_{settings}"
    return subprocess.run(
        [sys.executable, "-m", "django", *args],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(TESTS),
            "DJANGO_SETTINGS_MODULE": module,
            **(env or {}),
        },
        check=False,
        timeout=120,
    )


def example_environ(**values: str) -> dict[str, str]:
    """The environment of a process of the example project: this one's, less what
    the suite sets for itself (``CHILD_ENV_DROPPED``), and ``values``."""
    env = {key: value for key, value in os.environ.items() if key not in CHILD_ENV_DROPPED}
    return {**env, **values}


def example_manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The example project's ``manage.py <args>`` in ``env``, in a process of its own."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=EXAMPLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
