"""The refresh in processes of its own (tests/refresh_process.py), on a database they
share: one killed mid-render leaves the last good set and its records pending for
the next; two at once never publish a mixed set, and a record committed during a
refresh waits for the next one."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from built_sets import snapshot
from django.db import connection
from processes import TESTS, manage, unmeasured
from settings import named_database

from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.processes,
    pytest.mark.timeout(300),
]
SECONDS = 120
ROWS = 200  # four pages of fifty (tests/settings_kill.py)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The processes' environment: the settings and the database they share."""
    found = unmeasured(dict(os.environ)) | {
        "PYTHONPATH": str(TESTS),
        "DJANGO_SETTINGS_MODULE": "settings_kill",
    }
    if connection.vendor == "sqlite":
        found["SITEMAPKIT_TEST_SQLITE_FILE"] = str(tmp_path / "db.sqlite3")
        migrated = manage("migrate", "--verbosity", "0", settings="kill", env=found)
        assert migrated.returncode == 0, migrated.stderr
    else:
        found |= named_database(connection.settings_dict["NAME"])
    return found


def command(env: dict[str, str], *args: str) -> list[str]:
    return [sys.executable, "-m", "refresh_process", *args]


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(env, *args), env=env, capture_output=True, text=True, timeout=SECONDS, check=False
    )


def pending(env: dict[str, str]) -> int:
    return int(run(env, "pending").stdout)


@pytest.fixture
def built(env: dict[str, str], tmp_path: Path) -> Path:
    out = tmp_path / "out"
    seeded = run(env, "seed", str(ROWS), str(out))
    assert seeded.returncode == 0, seeded.stderr
    return out


def whole(out: Path) -> dict[str, bytes]:
    """The published set, checked whole: each file its manifest names, with its bytes."""
    files = snapshot(out)
    manifest = json.loads(files[MANIFEST_FILENAME])
    named = [f for shard in manifest["shards"] for f in shard["files"]] + [manifest["index"]]
    for file in named:
        assert hashlib.sha256(files[file["name"]]).hexdigest() == file["sha256"], file["name"]
    return files


def start_paused(env: dict[str, str], out: Path, pause: Path) -> subprocess.Popen[str]:
    """A refresh of ``out``, once it holds its lock and is about to render."""
    process = subprocess.Popen(
        command(env, "refresh", str(out), str(pause)),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + SECONDS
    while not pause.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    if not pause.exists():
        process.kill()
        pytest.fail(f"The refresh never paused: {process.communicate()}")
    return process


def urls(files: dict[str, bytes]) -> bytes:
    return b"".join(content for name, content in files.items() if name.startswith("sitemap-"))


def test_a_refresh_killed_mid_render_leaves_the_set_and_the_records_for_the_next(
    env: dict[str, str], built: Path, tmp_path: Path
) -> None:
    before = whole(built)
    assert run(env, "rename", "article-120", "renamed").returncode == 0
    assert pending(env) == 1
    process = start_paused(env, built, tmp_path / "pause")
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=SECONDS)
    assert process.returncode == -signal.SIGKILL
    assert whole(built) == before
    assert pending(env) == 1
    refreshed = run(env, "refresh", str(built))
    assert (refreshed.stderr, refreshed.returncode) == ("", 0)
    assert refreshed.stdout.splitlines()[-1] == "Applied 1 change record(s)."
    after = whole(built)
    assert b"/articles/renamed/" in urls(after)
    assert b"/articles/article-120/" not in urls(after)
    assert pending(env) == 0


def test_two_refreshes_at_once_never_publish_a_mixed_set(
    env: dict[str, str], built: Path, tmp_path: Path
) -> None:
    assert run(env, "rename", "article-120", "first").returncode == 0
    pause = tmp_path / "pause"
    process = start_paused(env, built, pause)
    before = whole(built)
    assert run(env, "rename", "article-10", "second").returncode == 0
    # Another refresh while the first holds the lock: refused, nothing published.
    other = run(env, "refresh", str(built))
    assert other.returncode == 1
    assert other.stderr == (
        f"CommandError: Another build_sitemaps is writing to {built}; wait for it to finish, "
        "then run this one again.\n"
    )
    assert whole(built) == before
    pause.with_name("pause.go").touch()
    stdout, stderr = process.communicate(timeout=SECONDS)
    assert (stderr, process.returncode) == ("", 0)
    assert stdout.splitlines()[-1] == "Applied 1 change record(s)."
    first = urls(whole(built))
    assert (b"/articles/first/" in first, b"/articles/second/" in first) == (True, False)
    # The record committed during the first refresh waits for the next one.
    assert pending(env) == 1
    third = run(env, "refresh", str(built))
    assert (third.stderr, third.returncode) == ("", 0)
    assert b"/articles/second/" in urls(whole(built))
    assert pending(env) == 0
