"""Servers the tests talk to over real sockets on 127.0.0.1: Redis, and an S3 endpoint.

Each server is a process of its own, started in a session of its own: stopping
it signals its whole process group, so nothing it started outlives it, and a
start that fails half-way stops what it began. Their output goes to a log file
(a pipe nobody reads would fill and block them), shown when a start fails.

A service that is not installed skips the tests that need it, naming what to
install, unless ``SITEMAPKIT_TEST_REQUIRE_SERVICES=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import pytest
from processes import unmeasured

REQUIRE_SERVICES = "SITEMAPKIT_TEST_REQUIRE_SERVICES"
#: How long a server may take to answer after it was started.
START_SECONDS = 30.0
#: How long a server may take to exit after SIGTERM, before SIGKILL.
STOP_SECONDS = 10.0
LOG_TAIL = 3000


def unavailable(reason: str) -> NoReturn:
    """Skip the test for want of ``reason``; fail it where every service is required."""
    if os.environ.get(REQUIRE_SERVICES) == "1":
        pytest.fail(f"{reason} ({REQUIRE_SERVICES}=1: the services are required)", pytrace=False)
    pytest.skip(reason)


def require_modules(*modules: str, install: str) -> None:
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        unavailable(f"{', '.join(missing)} cannot be imported: install {install}")


def require_program(name: str, *, fallback: str, install: str) -> str:
    """The path of the program ``name`` on PATH, or at ``fallback``."""
    found = shutil.which(name) or (fallback if os.access(fallback, os.X_OK) else None)
    if found is None:
        unavailable(f"no {name} on PATH nor {fallback}: install {install}")
    return found


def free_port() -> int:
    """A port nothing listens on now; the server started on it may still lose it to
    another process, and ``start()`` then tries another."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Process:
    """A server process, alone in its process group, its output in ``log``."""

    def __init__(self, argv: Sequence[str], log: Path, cwd: Path) -> None:
        self.log = log
        # The suite's warnings-as-errors (tox's PYTHONWARNINGS) are for this
        # package's code, not for a server written in Python and its imports;
        # nor is coverage.py's measuring, which cost moto's S3 server twice
        # the CPU: none of this package's code runs in a server.
        env = {k: v for k, v in unmeasured(dict(os.environ)).items() if k != "PYTHONWARNINGS"}
        with open(log, "ab") as output:
            self.popen = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def running(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        """SIGTERM to the group, SIGKILL to what is left of it; safe to call twice."""
        group = self.popen.pid  # the session leader's pid is its group's id
        if self.running():
            signal_group(group, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(STOP_SECONDS)
        # Whatever the leader did, a child it left in the group is killed too.
        signal_group(group, signal.SIGKILL)
        self.popen.wait()

    def output(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-LOG_TAIL:]


def signal_group(group: int, signum: signal.Signals) -> None:
    # ProcessLookupError: the group is empty, every process of it has exited.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signum)


def start(
    describe: str,
    command: Callable[[int], Sequence[str]],
    ready: Callable[[int], bool],
    directory: Path,
    *,
    attempts: int = 3,
) -> tuple[Process, int]:
    """Start ``command(port)`` on a free port and wait until ``ready(port)``.

    A process that exits before it is ready (its port taken meanwhile, say) is
    started again on another port, up to ``attempts`` times; one that is not
    ready in time is stopped and the test fails with its output.
    """
    last_output = ""
    for attempt in range(1, attempts + 1):
        port = free_port()
        process = Process(command(port), directory / f"{describe}-{attempt}.log", directory)
        try:
            answered = wait_until_ready(process, port, ready)
        except BaseException:
            process.stop()
            raise
        if answered:
            return process, port
        timed_out = process.running()
        process.stop()
        if timed_out:
            pytest.fail(
                f"{describe} did not answer on 127.0.0.1:{port} within {START_SECONDS:.0f} s; "
                f"its output:\n{process.output()}",
                pytrace=False,
            )
        last_output = f"exit status {process.popen.returncode}, output:\n{process.output()}"
    pytest.fail(
        f"{describe} exited before it answered, {attempts} times; the last: {last_output}",
        pytrace=False,
    )


def wait_until_ready(process: Process, port: int, ready: Callable[[int], bool]) -> bool:
    """Whether the process answered before it exited or ran out of time."""
    deadline = time.monotonic() + START_SECONDS
    while process.running() and time.monotonic() < deadline:
        if ready(port):
            return True
        time.sleep(0.05)
    return False


def redis_answers(port: int) -> bool:
    """Redis answers ``PING`` (an inline command) with ``+PONG``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64) == b"+PONG\r\n"
    except OSError:
        return False


def redis_command(program: str, directory: Path) -> Callable[[int], list[str]]:
    def command(port: int) -> list[str]:
        # In the foreground, on the loopback interface only, and nothing
        # written to the disk: a throwaway server for one test session.
        return [
            program,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(directory),
        ]

    return command
