"""The test command (tests/runtests.py) and its search for interpreters (tests/interpreters.py).

The interpreters here are real: links to the one running the suite, placed
where pyenv, uv or PATH would put one. A "shim" that fails stands for pyenv's
shim of a version that is installed but not selected. The tox output parsed
is text tox 4 printed for this repository's tox.ini.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from interpreters import Interpreter, find_interpreter, how_to_get, needed_version, search_path
from runtests import closing_lines, exit_status, parse_base_pythons, parse_env_list

RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"
OTHER = "3.99"  # a version no machine has
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


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


TOX_LIST = """default environments:
py310-django52 -> run the test suite on py310 against the built wheel (py310-django52)
py313-django52 -> run the test suite on py313 against the built wheel, under coverage.py
lint           -> ruff (lint and format) and mypy (strict, with the django-stubs plugin)
docs           -> build the documentation site (docs/) with Sphinx, every warning an error

additional environments:
coverage       -> combine the coverage data the test environments wrote since the last combine
"""
TOX_LIST_LABEL = """py313-django52 -> run the test suite on py313 against the built wheel
py313-django61 -> run the test suite on py313 against the built wheel (py313-django61)
"""
TOX_CONFIG = """[testenv:py310-django52]
base_python = py310

[testenv:lint]
base_python = py312

[testenv:docs]
base_python = py312, py313
"""


def test_the_env_list_leaves_out_the_additional_environments() -> None:
    assert parse_env_list(TOX_LIST) == ["py310-django52", "py313-django52", "lint", "docs"]
    assert parse_env_list(TOX_LIST, additional=True)[-1] == "coverage"
    assert parse_env_list(TOX_LIST_LABEL) == ["py313-django52", "py313-django61"]


def test_base_pythons_are_read_per_environment_first_one_first() -> None:
    assert parse_base_pythons(TOX_CONFIG) == {
        "py310-django52": "py310",
        "lint": "py312",
        "docs": "py312",
    }


ENVS = ["py310-django52", "py312-django52", "lint"]
BASES = {"py310-django52": "py310", "py312-django52": "py312", "lint": "py312"}


def test_every_environment_ran() -> None:
    assert closing_lines(ENVS, ENVS, BASES, 0, allow_missing=False) == [
        "runtests: 3 of 3 environments ran: passed."
    ]
    assert exit_status(0, missing=0, allow_missing=False) == 0


def test_environments_that_did_not_run_are_named_last_and_fail_the_command() -> None:
    lines = closing_lines(ENVS, ["py310-django52"], BASES, 0, allow_missing=False)
    assert lines == [
        "runtests: 2 of 3 environments DID NOT RUN:",
        f"  py312-django52: no python3.12 found. Get it with {how_to_get('3.12')}.",
        f"  lint: no python3.12 found. Get it with {how_to_get('3.12')}.",
        "runtests: 1 of 3 environments ran: passed.",
        "runtests: exit status 1: not every environment ran (see --allow-missing).",
    ]
    assert exit_status(0, missing=2, allow_missing=False) == 1


def test_allow_missing_accepts_what_did_not_run_but_still_names_it() -> None:
    lines = closing_lines(ENVS, ["py310-django52"], BASES, 0, allow_missing=True)
    assert lines[0] == "runtests: 2 of 3 environments DID NOT RUN:"
    assert lines[-1] == "runtests: 1 of 3 environments ran: passed."
    assert exit_status(0, missing=2, allow_missing=True) == 0


def test_a_failure_keeps_tox_s_status() -> None:
    lines = closing_lines(ENVS, ["py310-django52"], BASES, 3, allow_missing=False)
    assert lines[-1] == "runtests: 1 of 3 environments ran: FAILED (tox exit status 3)."
    assert exit_status(3, missing=2, allow_missing=False) == 3


@pytest.mark.slow
@pytest.mark.once
def test_pytest_names_each_skipped_test_and_why(tmp_path: Path) -> None:
    # The suite's own configuration (pyproject.toml's addopts), on a test that
    # skips: the closing summary gives its reason, in CI's log too.
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n\ndef test_a_skip():\n    pytest.skip('no chromium: install it')\n"
    )
    test = tmp_path / "test_skips.py"
    configuration = ["-c", str(PYPROJECT), "--rootdir", str(PYPROJECT.parent)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *configuration, str(test)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1
    assert skipped[0].startswith("SKIPPED [1] ")
    assert skipped[0].endswith("test_skips.py:5: no chromium: install it")
