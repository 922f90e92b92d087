"""``manage.py`` commands of a test's setup, each in a process forked from one that
has Django set up: what a new interpreter would do, at a fork's cost.

The real-worker tests (tests/worker_pool.py, tests/refresh_pool.py) seed rows,
make the set a test starts from and the local build each set is compared with,
dozens of times a module, on the database the workers share. A new interpreter
costs a second of CPU to import and set Django up (more under coverage.py, which
measures every process the suite starts); a fork of one that has done it costs
milliseconds. Each command still runs in a process of its own, from the state
the parent had before any command ran (the parent never runs one, nor opens a
connection), so no cache of one command is another's, as with ``manage.py``.

``python -m forked_manage`` reads one command a line on its standard input, as
JSON (``manage.py``'s arguments), and answers each on one line, as JSON: the
exit status, the standard output and the standard error. ``Forks`` is the test's
side. The processes under test (the workers, the coordinator, a saving process
with change capture) are never started here: they are what the tests test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

#: For any one command, as processes.manage() allows.
SECONDS = 120


def run_forked(args: list[str], outputs: Path) -> tuple[int, str, str]:
    """``manage.py <args>`` in a forked child, its output in files of ``outputs``."""
    from django.db import connections

    # Nothing of the parent's is the child's: no connection is open to share.
    connections.close_all()
    stdout, stderr = outputs / "stdout", outputs / "stderr"
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            for fd, path in ((1, stdout), (2, stderr)):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            from django.core.management import execute_from_command_line

            execute_from_command_line(["django", *args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, waited = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(waited), stdout.read_text(), stderr.read_text()


def main() -> None:
    import django

    django.setup()
    # What the commands import, imported once, before any fork.
    import django_sitemapkit.management.commands.build_sitemaps  # noqa: F401

    with tempfile.TemporaryDirectory() as outputs:
        for line in sys.stdin:
            print(json.dumps(run_forked(json.loads(line), Path(outputs))), flush=True)


class Forks:
    """``python -m forked_manage`` with ``env``, running; ``manage()`` as processes.manage()."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "forked_manage"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(args) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"forked_manage stopped on {args!r}"
        returncode, stdout, stderr = json.loads(answer)
        return subprocess.CompletedProcess(["manage.py", *args], returncode, stdout, stderr)

    def close(self) -> None:
        """Ends it (its standard input closed); safe to call twice."""
        if self.process.poll() is None:
            self.process.communicate(timeout=SECONDS)


if __name__ == "__main__":
    main()
