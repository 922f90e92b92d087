"""A management command run as a user meets it: (stdout, stderr, exit status), a
``CommandError`` written to stderr as ``manage.py`` writes it."""

from __future__ import annotations

import io
from typing import Any

from django.core.management import call_command
from django.core.management.base import CommandError


def outcome(name: str, *args: str, **options: Any) -> tuple[str, str, int]:
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        call_command(name, *args, stdout=stdout, stderr=stderr, **options)
    except CommandError as exc:
        stderr.write(f"CommandError: {exc}\n")
        return stdout.getvalue(), stderr.getvalue(), exc.returncode
    return stdout.getvalue(), stderr.getvalue(), 0
