"""The test command's search for interpreters (tests/runtests.py).

The interpreters here are real: links to the one running the suite, placed
where pyenv, uv or PATH would put one. A "shim" that fails stands for pyenv's
shim of a version that is installed but not selected.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from runtests import Interpreter, find_interpreter, how_to_get, needed_version, search_path

RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"
OTHER = "3.99"  # a version no machine has


def link(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).symlink_to(sys.executable)
    return directory / name


def failing_shim(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / name
    shim.write_text(f"#!/bin/sh\necho 'pyenv: {name}: command not found' >&2\nexit 127\n")
    shim.chmod(0o755)
    return shim


@pytest.mark.parametrize(
    ("base_python", "version"),
    [("py310", "3.10"), ("py313", "3.13"), ("python3.12", "3.12"), ("py3", None), ("", None)],
)
def test_needed_version(base_python: str, version: str | None) -> None:
    assert needed_version(base_python) == version


def test_pyenv_versions_are_found_without_being_on_path(tmp_path: Path) -> None:
    pyenv = tmp_path / "pyenv"
    older = link(pyenv / "versions" / f"{RUNNING}.1" / "bin", f"python{RUNNING}")
    newer = link(pyenv / "versions" / f"{RUNNING}.10" / "bin", f"python{RUNNING}")
    found = find_interpreter(RUNNING, path="", home=tmp_path / "home", pyenv_root=pyenv)
    # The newest patch release: 10 sorts after 1 as a number, not as text.
    assert found == Interpreter(RUNNING, newer)
    assert older.exists()


def test_a_shim_that_fails_is_passed_over_for_a_real_interpreter_later_on_path(
    tmp_path: Path,
) -> None:
    pyenv = tmp_path / "pyenv"
    failing_shim(pyenv / "shims", f"python{RUNNING}")
    real = link(tmp_path / "usr" / "bin", f"python{RUNNING}")
    path = os.pathsep.join([str(pyenv / "shims"), str(tmp_path / "usr" / "bin")])
    found = find_interpreter(RUNNING, path=path, home=tmp_path / "home", pyenv_root=pyenv)
    assert found == Interpreter(RUNNING, real)


def test_uv_interpreters_are_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    uv = home / ".local" / "share" / "uv" / "python" / f"cpython-{RUNNING}.4-linux-x86_64-gnu"
    real = link(uv / "bin", f"python{RUNNING}")
    found = find_interpreter(RUNNING, path="", home=home, pyenv_root=tmp_path / "pyenv")
    assert found == Interpreter(RUNNING, real)


def test_a_program_that_reports_another_version_is_not_taken(tmp_path: Path) -> None:
    # A python3.99 that is really the running version must not pass for 3.99.
    link(tmp_path / "bin", f"python{OTHER}")
    found = find_interpreter(
        OTHER, path=str(tmp_path / "bin"), home=tmp_path, pyenv_root=tmp_path / "pyenv"
    )
    assert found is None


def test_search_path_puts_each_directory_first_once(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "python3.10", tmp_path / "b" / "python3.11"
    found = [Interpreter("3.10", a), Interpreter("3.11", b), Interpreter("3.12", a)]
    assert search_path(found, "/usr/bin:/bin") == os.pathsep.join(
        [str(a.parent), str(b.parent), "/usr/bin:/bin"]
    )


def test_how_to_get_names_every_way() -> None:
    assert how_to_get("3.10") == (
        "pyenv install 3.10 (then rerun: this script finds pyenv's versions), "
        "or uv python install 3.10, or your system's python3.10 package "
        "(Debian/Ubuntu: apt-get install python3.10 python3.10-venv)"
    )
