"""The test command of django-sitemapkit: every tox environment, or a clear failure.

    python3 tests/runtests.py                  every environment of tox.ini's env_list
    python3 tests/runtests.py -m postgresql    the environments of a tox label
    python3 tests/runtests.py -e py313-django61 -- -k encoder -x
                                               some environments; pytest's options after "--"
    python3 tests/runtests.py --allow-missing  run what the interpreters found allow

It needs nothing but a Python 3.9 or later with the venv module, on any
machine, including one where pip may not install into the system Python
(PEP 668): tox runs from a virtual environment of its own, .tox/_runner.

tox finds a test environment's interpreter (python3.10 for py310-django52) on
PATH only. On a machine with pyenv, only the global version is usually there,
through pyenv's shims, and tox would skip (or fail) the rest. So this script
looks for each interpreter the chosen environments need, in pyenv's versions,
among the interpreters uv installed and on PATH, and puts the directory of
each one it finds first on PATH for tox.

An environment whose interpreter is found nowhere is not run. The last lines
of the output then name each environment that did not run and how to get its
interpreter, and the exit status is 1 (unless --allow-missing is given): the
command never ends in a bare success after running part of the matrix.
"""

# Standard library only, and Python 3.9 syntax: this runs before any
# virtual environment exists, under whatever "python3" the machine has.
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / ".tox" / "_runner"
# The same lower bound as tox.ini's "requires".
TOX_REQUIREMENT = "tox>=4.22"
OLDEST_RUNNER = (3, 9)


class Interpreter(NamedTuple):
    version: str  # "3.12"
    path: Path


def log(message: str) -> None:
    print(f"runtests: {message}", flush=True)


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


def ensure_runner() -> Path:
    """The runner's Python, with tox installed; created on first use."""
    python = RUNNER / "bin" / "python"
    if not python.exists():
        log(f"creating the virtual environment {RUNNER.relative_to(ROOT)} for tox")
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(RUNNER)
        except (OSError, subprocess.CalledProcessError) as error:
            sys.exit(
                f"runtests: could not create a virtual environment with {sys.executable}: "
                f"{error}\nOn Debian or Ubuntu, install the venv module: "
                f"apt-get install python3-venv (or python{sys.version_info[0]}."
                f"{sys.version_info[1]}-venv), then run this command again."
            )
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            TOX_REQUIREMENT,
        ],
        check=True,
    )
    return python


def tox_base_pythons(python: Path, envs: Sequence[str]) -> dict[str, str]:
    """Each environment's base_python, as tox itself resolves it from tox.ini."""
    output = subprocess.run(
        [str(python), "-m", "tox", "config", "-e", ",".join(envs), "-k", "base_python"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, str] = {}
    env = None
    for line in output.splitlines():
        header = re.fullmatch(r"\[testenv:(.+)\]", line.strip())
        if header:
            env = header.group(1)
        elif env and line.startswith("base_python"):
            result[env] = line.partition("=")[2].strip().split(",")[0].strip()
    return result


def selected_envs(python: Path, options: argparse.Namespace) -> list[str]:
    """The environments named by -e, or by -m, or else tox.ini's env_list."""
    if options.envs:
        return [env for group in options.envs for env in group.split(",") if env]
    command = [str(python), "-m", "tox", "list"]
    if options.labels:
        command += ["-m", *options.labels]
    output = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # "name -> description" lines: without -m, the env_list ("default
    # environments") comes first, then the "additional environments" that
    # "tox" alone does not run.
    envs: list[str] = []
    for line in output.splitlines():
        if line.startswith("additional environments"):
            break
        name, arrow, _ = line.partition(" -> ")
        if arrow:
            envs.append(name.strip())
    return envs


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


def parse(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    argv = list(argv)
    pytest_args: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, pytest_args = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(
        prog="python3 tests/runtests.py",
        description="Run the tox environments with every interpreter they need.",
    )
    parser.add_argument("-e", dest="envs", action="append", help="environments, comma-separated")
    parser.add_argument(
        "-m", dest="labels", action="append", help="a tox label (tests, postgresql)"
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="exit with tox's status when only environments without an interpreter were left out",
    )
    return parser.parse_args(argv), pytest_args


def main(argv: Sequence[str]) -> int:
    options, pytest_args = parse(argv)
    if sys.version_info < OLDEST_RUNNER:
        sys.exit(
            f"runtests: {sys.executable} is Python {sys.version.split()[0]}; tox needs 3.9 or "
            "later to run from. Run this script with a newer python3."
        )
    python = ensure_runner()
    envs = selected_envs(python, options)
    if not envs:
        sys.exit("runtests: no tox environment matches " + " ".join(argv))
    base_pythons = tox_base_pythons(python, envs)
    path = os.environ.get("PATH", "")
    home = Path.home()
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or home / ".pyenv")
    wanted = sorted({v for v in map(needed_version, base_pythons.values()) if v}, key=version_key)
    found: dict[str, Interpreter] = {}
    for version in wanted:
        interpreter = find_interpreter(version, path, home, pyenv_root)
        if interpreter:
            found[version] = interpreter
        log(f"python{version}: {interpreter.path if interpreter else 'NOT FOUND'}")
    runnable = [e for e in envs if needed_version(base_pythons.get(e, "")) in (*found, None)]
    missing = [e for e in envs if e not in runnable]

    status = 0
    if runnable:
        environ = dict(os.environ)
        environ["PATH"] = search_path(list(found.values()), path)
        command = [str(python), "-m", "tox", "run", "-e", ",".join(runnable)]
        # An interpreter that tox cannot find after all must fail, not be skipped.
        command += ["--skip-missing-interpreters", "false"]
        if pytest_args:
            command += ["--", *pytest_args]
        log(f"running {len(runnable)} of {len(envs)} environments: {' '.join(command[1:])}")
        status = subprocess.run(command, cwd=ROOT, env=environ, check=False).returncode

    print(flush=True)
    if missing:
        print(f"runtests: {len(missing)} of {len(envs)} environments DID NOT RUN:")
        for env in missing:
            version = needed_version(base_pythons[env]) or base_pythons[env]
            print(f"  {env}: no python{version} found. Get it with {how_to_get(version)}.")
    outcome = "passed" if status == 0 else f"FAILED (tox exit status {status})"
    print(f"runtests: {len(runnable)} of {len(envs)} environments ran: {outcome}.")
    if status == 0 and missing and not options.allow_missing:
        print(
            "runtests: exit status 1 because environments did not run (--allow-missing accepts it)."
        )
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
