"""``manage.py build_sitemaps --via celery`` whose publish waits, after its first page
is copied, for the test to stop the S3 server (tests/test_distributed_workers.py).

Usage: ``stopping_publish.py STOPPING STOPPED``: the file ``STOPPING`` is created
once a page is copied and the other copies are held; the publish goes on once
the test has created ``STOPPED``. Only the moment is the test's: the copies,
the server and its failure are real.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import django


def main() -> None:
    stopping, stopped = (Path(arg) for arg in sys.argv[1:3])
    django.setup()
    from django.core.management import execute_from_command_line

    from django_sitemapkit.distributed.staging import SharedStaging

    copy = SharedStaging.copy
    held = threading.Lock()

    def first_then_hold(self: SharedStaging, staged: str, name: str) -> None:
        with held:
            if not stopping.exists():
                copy(self, staged, name)
                stopping.touch()
                while not stopped.exists():
                    time.sleep(0.02)
                return
        copy(self, staged, name)

    SharedStaging.copy = first_then_hold  # type: ignore[method-assign]
    execute_from_command_line(["manage.py", "build_sitemaps", "--via", "celery"])


if __name__ == "__main__":
    main()
