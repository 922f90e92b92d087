"""``manage.py`` in a process of its own, for real exit codes and output streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent


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
