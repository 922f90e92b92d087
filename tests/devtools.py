"""Chromium driven through its DevTools protocol, for tests that follow links as a
browser does (tests/test_browser.py).

The protocol runs over ``--remote-debugging-pipe``: JSON messages, each ended by
a NUL byte, written to the browser's file descriptor 3 and read from its 4; no
port is opened and no client library is needed. Every wait is bounded, and the
browser is stopped, with whatever it started, when the ``with`` block ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

#: Seconds any one command, or one page load, may take.
STEP_SECONDS = 30


class Visit(NamedTuple):
    """Where following a link led: the URL the browser ended on, and its status."""

    url: str
    status: int | None


class Browser:
    """One headless Chromium and one page in it, whose links can be read and followed.

    ``resolver_rules`` is Chromium's ``--host-resolver-rules``: a test maps the
    names it needs to 127.0.0.1 and every other name to nothing, so that no
    request leaves the machine.
    """

    def __init__(self, chromium: str, flags: list[str], profile: Path, resolver_rules: str) -> None:
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()
        # bash, not sh: dash redirects only descriptors 0 to 9.
        child_read, child_write = (
            fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, replies_write)
        )
        for fd in (commands_read, replies_write):
            os.close(fd)
        script = f'exec "$0" "$@" 3<&{child_read} 4>&{child_write} {child_read}<&- {child_write}>&-'
        self.process = subprocess.Popen(
            [
                "bash",
                "-c",
                script,
                chromium,
                *flags,
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                f"--host-resolver-rules={resolver_rules}",
                "about:blank",
            ],
            pass_fds=(child_read, child_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for fd in (child_read, child_write):
            os.close(fd)
        self.buffer = b""
        self.last_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def __enter__(self) -> Browser:
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        attached = self.command("Target.attachToTarget", targetId=target, flatten=True)
        self.session = attached["sessionId"]
        self.command("Page.enable")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with contextlib.suppress(OSError, TimeoutError, EOFError):
            self.session = ""
            self.command("Browser.close")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        # Helpers left behind go too, then the leader is reaped.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        for fd in (self.commands, self.replies):
            os.close(fd)

    def command(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command to the page (or the browser, before one is attached) and
        return its result; a protocol error fails the test with its message."""
        self.last_id += 1
        message: dict[str, Any] = {"id": self.last_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + STEP_SECONDS
        while True:
            received = self.receive(deadline, method)
            if received.get("id") == self.last_id:
                assert "error" not in received, f"{method}: {received['error']}"
                result: dict[str, Any] = received["result"]
                return result
            self.events.append(received)

    def receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.replies], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"Chromium did not answer {waiting_for} in {STEP_SECONDS} s")
            chunk = os.read(self.replies, 1 << 16)
            if not chunk:
                raise EOFError(f"Chromium exited while answering {waiting_for}")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\0", 1)
        received: dict[str, Any] = json.loads(line)
        return received

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page. DevTools runs it whatever the page's
        Content-Security-Policy says, which forbids the page's own scripts."""
        found = self.command("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in found, found["exceptionDetails"]
        return found["result"].get("value")

    def visit(self, url: str) -> Visit:
        """Load ``url`` as a link followed would, and wait for the load to end."""
        self.events.clear()
        navigated = self.command("Page.navigate", url=url)
        assert "errorText" not in navigated, f"{url}: {navigated['errorText']}"
        deadline = time.monotonic() + STEP_SECONDS
        while not any(event.get("method") == "Page.loadEventFired" for event in self.events):
            self.events.append(self.receive(deadline, f"the load of {url}"))
        status = self.evaluate(
            "performance.getEntriesByType('navigation')[0]?.responseStatus ?? null"
        )
        return Visit(self.evaluate("location.href"), status)

    def links(self) -> list[str]:
        """Every link of the page, as the browser resolves it against the page's URL."""
        found = self.evaluate("Array.from(document.links, link => link.href)")
        assert isinstance(found, list)
        return [str(link) for link in found]
