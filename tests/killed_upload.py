"""``manage.py build_sitemaps`` into S3 that waits, as its first multipart upload is about
to send a part, for the test to kill it (tests/test_storage_s3.py).

Usage: ``killed_upload.py STARTED``, with tests/settings_distributed.py and the
test's bucket in ``SITEMAPKIT_TEST_S3_STORAGE``. Every file is uploaded in
parts (boto3's multipart threshold at one byte, as for a page past 8 MB); the
file ``STARTED`` is created when the first part is about to go, and the build
then waits there for the test's ``SIGKILL``. Only the moment is the test's:
the build, its staging directory and the upload it leaves unfinished in the
bucket are real.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import django


def main() -> None:
    started = Path(sys.argv[1])
    django.setup()
    from boto3.s3.transfer import TransferConfig  # type: ignore[import-untyped]
    from django.core.files.storage import storages
    from django.core.management import call_command

    # The settings' database is this process's own, in memory.
    call_command("migrate", verbosity=0)
    storage: Any = storages["sitemaps"]
    storage.transfer_config = TransferConfig(multipart_threshold=1, use_threads=False)

    def hold(**kwargs: Any) -> None:
        started.touch()
        while True:
            time.sleep(1)

    storage.connection.meta.client.meta.events.register("before-send.s3.UploadPart", hold)
    call_command("build_sitemaps", verbosity=0)


if __name__ == "__main__":
    main()
