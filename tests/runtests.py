"""The test command of django-sitemapkit: every tox environment, or a clear failure.

    python3 tests/runtests.py                  every environment of tox.ini's env_list
    python3 tests/runtests.py -m tests         the environments of a tox label
    python3 tests/runtests.py -e py313-django61 -- -k encoder -x
                                               some environments; pytest's options after "--"
    python3 tests/runtests.py --allow-missing  run what the interpreters found allow
    python3 tests/runtests.py -p 2             two environments at a time (tox run-parallel)

It needs nothing but a Python 3.9 or later with the venv module, on any
machine, including one where pip may not install into the system Python
(PEP 668): tox runs from a virtual environment of its own, .tox/_runner,
with its plugin tox-uv, so that uv makes the test environments.

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
import fcntl
import os
import re
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path

from interpreters import (
    Interpreter,
    find_interpreter,
    how_to_get,
    needed_version,
    search_path,
    version_key,
)

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / ".tox" / "_runner"
# The same lower bounds as tox.ini's "requires": with tox-uv beside tox, uv
# makes the environments and installs into them, and tox has no reason to
# provision an environment of its own (which it would do with pip).
TOX_REQUIREMENTS = ("tox>=4.22", "tox-uv>=1.25")
OLDEST_RUNNER = (3, 9)


def log(message: str) -> None:
    print(f"runtests: {message}", flush=True)


def runs(command: Sequence[str]) -> bool:
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def ensure_runner() -> Path:
    """The runner's Python, with tox and tox-uv installed; (re)created when it has no pip.

    Two test commands may start at once (CI runs its SQLite and PostgreSQL
    passes side by side): the first makes the runner while the other waits on
    a lock, then finds it made, instead of clearing it under the first one.
    """
    RUNNER.parent.mkdir(parents=True, exist_ok=True)
    with open(RUNNER.parent / "_runner.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return make_runner()


def make_runner() -> Path:
    python = RUNNER / "bin" / "python"
    # A runner left without pip (Debian's venv without python3-venv stops
    # half-way) is made again rather than failing on every later run.
    if not (python.exists() and runs([str(python), "-m", "pip", "--version"])):
        log(f"creating the virtual environment {RUNNER.relative_to(ROOT)} for tox")
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(RUNNER)
            created = runs([str(python), "-m", "pip", "--version"])
        except (OSError, subprocess.CalledProcessError, SystemExit):
            # Debian's venv calls sys.exit() when ensurepip is missing.
            created = False
        if not created:
            sys.exit(
                f"runtests: could not create a virtual environment with pip, with "
                f"{sys.executable}. On Debian or Ubuntu, install the venv module "
                f"(apt-get install python3-venv, or python{sys.version_info[0]}."
                f"{sys.version_info[1]}-venv), then run this command again."
            )
    install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if subprocess.run([*install, *TOX_REQUIREMENTS], check=False).returncode != 0:
        wanted = " ".join(TOX_REQUIREMENTS)
        sys.exit(f"runtests: pip could not install {wanted} (its message is above).")
    return python


def tox_output(python: Path, *args: str) -> str:
    """What a tox command prints; its own error goes to stderr, then we stop."""
    done = subprocess.run(
        [str(python), "-m", "tox", *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    if done.returncode != 0:
        sys.exit(f"runtests: 'tox {' '.join(args)}' failed (its message is above).")
    return done.stdout


def parse_base_pythons(config: str) -> dict[str, str]:
    """Each environment's first base_python, from the text of "tox config -k base_python"."""
    result: dict[str, str] = {}
    env = None
    for line in config.splitlines():
        header = re.fullmatch(r"\[testenv:(.+)\]", line.strip())
        if header:
            env = header.group(1)
        elif env and line.startswith("base_python"):
            result[env] = line.partition("=")[2].strip().split(",")[0].strip()
    return result


def parse_env_list(listing: str, *, additional: bool = False) -> list[str]:
    """The environments of "tox list" text: "name -> description" lines.

    Without -m, tox prints the env_list ("default environments") first, then
    the "additional environments" that "tox" alone does not run: those are
    left out unless asked for.
    """
    envs: list[str] = []
    for line in listing.splitlines():
        if line.startswith("additional environments") and not additional:
            break
        name, arrow, _ = line.partition(" -> ")
        if arrow:
            envs.append(name.strip())
    return envs


def selected_envs(python: Path, options: argparse.Namespace) -> list[str]:
    """The environments named by -e (each must exist), by -m, or else the env_list."""
    if options.envs:
        known = parse_env_list(tox_output(python, "list"), additional=True)
        envs = [env for group in options.envs for env in group.split(",") if env]
        unknown = [env for env in envs if env not in known]
        if unknown:
            sys.exit(f"runtests: no environment {unknown!r} in tox.ini; it has {known!r}.")
        return envs
    return parse_env_list(
        tox_output(python, "list", *(["-m", *options.labels] if options.labels else []))
    )


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
        "-m", dest="labels", action="append", help="a tox label (tests: the matrix)"
    )
    parser.add_argument(
        "-p",
        dest="parallel",
        type=int,
        default=1,
        metavar="N",
        help="run N environments at a time (tox run-parallel, output live); default 1",
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
    base_pythons = parse_base_pythons(
        tox_output(python, "config", "-e", ",".join(envs), "-k", "base_python")
    )
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

    status = 0
    if runnable:
        environ = dict(os.environ)
        environ["PATH"] = search_path(list(found.values()), path)
        # uv (tox-uv) takes each interpreter from that PATH. Where it finds none
        # it would download one, which is not what was found and reported above,
        # and fails slowly where the download site cannot be reached: never.
        environ.setdefault("UV_PYTHON_DOWNLOADS", "never")
        command = [str(python), "-m", "tox", *run_command(options.parallel)]
        command += ["-e", ",".join(runnable)]
        # An interpreter that tox cannot find after all must fail, not be skipped.
        command += ["--skip-missing-interpreters", "false"]
        if pytest_args:
            command += ["--", *pytest_args]
        log(f"running {len(runnable)} of {len(envs)} environments: {' '.join(command[1:])}")
        status = subprocess.run(command, cwd=ROOT, env=environ, check=False).returncode

    print(flush=True)
    print("\n".join(closing_lines(envs, runnable, base_pythons, status, options.allow_missing)))
    return exit_status(
        status, missing=len(envs) - len(runnable), allow_missing=options.allow_missing
    )


def run_command(parallel: int) -> list[str]:
    """tox's command for ``parallel`` environments at a time.

    run-parallel shows the output of an environment that passed only with
    --parallel-live, which passes it on line by line as it comes: the lines of
    two environments interleave, each line whole (pytest's closing line too).
    """
    if parallel > 1:
        return ["run-parallel", "--parallel", str(parallel), "--parallel-live"]
    return ["run"]


def closing_lines(
    envs: Sequence[str],
    runnable: Sequence[str],
    base_pythons: dict[str, str],
    status: int,
    allow_missing: bool,
) -> list[str]:
    """The last lines of the output: what did not run and how to get it, then the outcome."""
    lines = []
    missing = [env for env in envs if env not in runnable]
    if missing:
        lines.append(f"runtests: {len(missing)} of {len(envs)} environments DID NOT RUN:")
        for env in missing:
            version = needed_version(base_pythons[env]) or base_pythons[env]
            lines.append(f"  {env}: no python{version} found. Get it with {how_to_get(version)}.")
    outcome = "passed" if status == 0 else f"FAILED (tox exit status {status})"
    lines.append(f"runtests: {len(runnable)} of {len(envs)} environments ran: {outcome}.")
    if missing and status == 0 and not allow_missing:
        lines.append("runtests: exit status 1: not every environment ran (see --allow-missing).")
    return lines


def exit_status(status: int, *, missing: int, allow_missing: bool) -> int:
    """tox's status, or 1 when environments did not run: never a bare success."""
    if status == 0 and missing and not allow_missing:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
