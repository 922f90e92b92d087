"""The process the kill test (tests/test_build_kill.py) runs its builds from, and
changes their rows with, on the database every process shares
(tests/settings_kill.py).

``python -m kill_runner`` sets Django up once, then reads one command a line on
its standard input and answers each on one line:

- ``seed <rows>``: creates that many published articles; ``ok``;
- ``generation <n>``: sets every article's ``updated_at`` to
  ``generation_time(n)``; ``ok``. Each build so has one lastmod in every URL,
  unlike the build before's: a file of another build is told by it;
- ``build <output> <errors file>``: forks a process that runs
  ``build_sitemaps --output <output>`` as ``manage.py`` would, its standard
  error to the file; its pid. A fork of a process that has imported Django
  starts in a few milliseconds, where a new interpreter takes a third of a
  second, a hundred times over in the test;
- ``poll <pid>`` and ``wait <pid>``: the build's exit status as
  ``subprocess.Popen.returncode`` has it (minus the signal that killed it),
  ``poll`` answering ``running`` when there is none yet.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import traceback

import django

FIRST = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def generation_time(generation: int) -> dt.datetime:
    return FIRST + dt.timedelta(minutes=generation)


def fork_build(output: str, errors: str) -> int:
    from django.core.management import execute_from_command_line
    from django.db import connections

    # The child opens its own connection: a socket or file two processes
    # share would mix their queries.
    connections.close_all()
    # Opened before the fork, so there is a file to read even for a build
    # killed as it starts.
    error_file = os.open(errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.fork()
    if pid:
        os.close(error_file)
        # A pid is used again once the system has gone round its pids (32768 on
        # a default Linux, a few minutes of a busy CI): the status kept for an
        # earlier build of this pid is not this one's.
        ENDED.pop(pid, None)
        return pid
    code = 1
    try:
        os.dup2(os.open(os.devnull, os.O_RDWR), 0)
        os.dup2(os.open(os.devnull, os.O_RDWR), 1)
        os.dup2(error_file, 2)
        execute_from_command_line(["django", "build_sitemaps", "--skip-checks", "--output", output])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


#: The exit status of each build waited for, by pid.
ENDED: dict[int, int] = {}


def status(pid: int, flags: int) -> str:
    if pid not in ENDED:
        found, waited = os.waitpid(pid, flags)
        if found == 0:
            return "running"
        ENDED[pid] = os.waitstatus_to_exitcode(waited)
    return str(ENDED[pid])


def answer(line: str) -> str:
    from testapp.models import Article

    command, *args = line.split()
    if command == "seed":
        Article.objects.bulk_create(
            Article(slug=f"article-{n}", title=f"Article {n}", updated_at=FIRST)
            for n in range(int(args[0]))
        )
        return "ok"
    if command == "generation":
        Article.objects.update(updated_at=generation_time(int(args[0])))
        return "ok"
    if command == "build":
        return str(fork_build(*args))
    if command in ("poll", "wait"):
        return status(int(args[0]), os.WNOHANG if command == "poll" else 0)
    raise ValueError(f"Unknown command {line!r}; use seed, generation, build, poll or wait.")


def main() -> None:
    django.setup()
    # What every build imports, imported once.
    import django_sitemapkit.management.commands.build_sitemaps  # noqa: F401

    for line in sys.stdin:
        print(answer(line), flush=True)


if __name__ == "__main__":
    main()
