"""The processes of the refresh's slow tests (tests/test_build_refresh_processes.py), on
the database every process shares (tests/settings_kill.py), with the changes
recorded (``SITEMAPKIT_CHANGES = "record"``).

``python -m refresh_process <command> <args>``:

- ``seed <rows> <output>``: that many published articles, built into ``output``;
- ``rename <old slug> <new slug>``: an article's slug changed by a loaded instance's
  ``save()`` (one change record);
- ``pending``: prints how many records are pending;
- ``refresh <output> [<pause file>]``: ``build_sitemaps --changed --output <output>``
  as ``manage.py`` runs it. With a pause file, the render waits once the build holds
  its lock: the file is created (holding the pid), and the render goes on when
  ``<pause file>.go`` exists (60 s at most). The test kills it there, or runs
  another refresh then. Only the moment is the test's: the lock, the render and the
  publish are the build's own.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from pathlib import Path
from typing import Any

import django

FIRST = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
PAUSE_SECONDS = 60


def paused_renderer(pause: Path) -> None:
    import django_sitemapkit.build as build

    # The name build/__init__.py renders with (imported there from render.py).
    names = vars(build)
    render = names["render_shards"]

    def held(*args: Any, **kwargs: Any) -> Any:
        pause.write_text(str(os.getpid()))
        go = pause.with_name(pause.name + ".go")
        deadline = time.monotonic() + PAUSE_SECONDS
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return render(*args, **kwargs)

    names["render_shards"] = held


def main(command: str, *args: str) -> None:
    django.setup()
    from django.core.management import call_command, execute_from_command_line
    from django.test import override_settings
    from testapp.models import Article

    from django_sitemapkit.changes import records

    override_settings(SITEMAPKIT_CHANGES="record").enable()
    if command == "seed":
        rows, output = int(args[0]), args[1]
        Article.objects.bulk_create(
            Article(slug=f"article-{n}", title=f"Article {n}", updated_at=FIRST)
            for n in range(rows)
        )
        call_command("build_sitemaps", output=output, verbosity=0)
    elif command == "rename":
        article = Article.objects.get(slug=args[0])
        article.slug = args[1]
        article.save()
    elif command == "pending":
        print(len(records.pending(1_000).ids))
    elif command == "refresh":
        if len(args) > 1:
            paused_renderer(Path(args[1]))
        execute_from_command_line(["django", "build_sitemaps", "--changed", "--output", args[0]])
    else:
        raise SystemExit(f"Unknown command {command!r}.")


if __name__ == "__main__":
    main(*sys.argv[1:])
