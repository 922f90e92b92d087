"""Where the interpreters of the tox matrix are: pyenv, uv, PATH.

tox finds a test environment's interpreter (python3.10 for py310-django52) on
PATH only. On a machine with pyenv, usually only the global version is there,
through pyenv's shims; the others sit in ~/.pyenv/versions. This module finds
each one wherever it is, for tests/runtests.py.
"""

# Standard library only, and Python 3.9 syntax (see runtests.py).
from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple


class Interpreter(NamedTuple):
    version: str  # "3.12"
    path: Path


def version_of(executable: Path) -> str | None:
    """The "X.Y" that the program reports, or None when it does not run.

    pyenv's shims exist for every installed version but only run the selected
    ones, and a stale link may point nowhere: running the program is the only
    test that tells.
    """
    try:
        completed = subprocess.run(
            [str(executable), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    return completed.stdout.strip() or None


def version_key(name: str) -> tuple[int, ...]:
    """Orders "3.12.1" after "3.12.0" and "3.12.10" after "3.12.9"."""
    return tuple(int(part) for part in re.findall(r"\d+", name))


def candidates(version: str, path: str, home: Path, pyenv_root: Path) -> list[Path]:
    """Where pythonX.Y may be, best first: real installations before pyenv's shims."""
    found: list[Path] = []
    name = f"python{version}"
    # pyenv's versions (3.12.1, 3.12.7, ...), the newest patch release first.
    versions = pyenv_root / "versions"
    if versions.is_dir():
        matching = [d for d in versions.iterdir() if d.name.startswith(f"{version}.")]
        for directory in sorted(matching, key=lambda d: version_key(d.name), reverse=True):
            found.append(directory / "bin" / name)
    # uv's managed interpreters (uv python install 3.12).
    uv_root = home / ".local" / "share" / "uv" / "python"
    if uv_root.is_dir():
        matching = [d for d in uv_root.iterdir() if d.name.startswith(f"cpython-{version}.")]
        for directory in sorted(matching, key=lambda d: version_key(d.name), reverse=True):
            found.append(directory / "bin" / name)
    shims = pyenv_root / "shims"
    for entry in path.split(os.pathsep):
        if entry and Path(entry) != shims:
            found.append(Path(entry) / name)
    # A shim runs the version only if pyenv has it selected (global or local).
    found.append(shims / name)
    return found


def find_interpreter(version: str, path: str, home: Path, pyenv_root: Path) -> Interpreter | None:
    for candidate in candidates(version, path, home, pyenv_root):
        if candidate.is_file() and version_of(candidate) == version:
            return Interpreter(version, candidate)
    return None


def needed_version(base_python: str) -> str | None:
    """ "py312" or "python3.12" -> "3.12"; None for what names no version."""
    match = re.fullmatch(r"(?:py|python)(\d)\.?(\d+)", base_python.strip())
    return f"{match.group(1)}.{match.group(2)}" if match else None


def how_to_get(version: str) -> str:
    return (
        f"pyenv install {version} (then rerun: this script finds pyenv's versions), "
        f"or uv python install {version}, or your system's python{version} package "
        f"(Debian/Ubuntu: apt-get install python{version} python{version}-venv)"
    )


def search_path(found: Sequence[Interpreter], path: str) -> str:
    """PATH with the directory of each interpreter found in front.

    tox (through virtualenv) takes pythonX.Y from the first PATH directory that
    has one that runs. Links to the interpreters in a directory of their own
    would not do: virtualenv cannot find the installation behind a link.
    """
    directories: list[str] = []
    for interpreter in found:
        directory = str(interpreter.path.parent)
        if directory not in directories:
            directories.append(directory)
    return os.pathsep.join([*directories, path])
