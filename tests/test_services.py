"""The test services themselves (services.py, relay.py, s3_endpoint.py): they answer,
an outage of the S3 endpoint is one, and nothing they start outlives them."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import services
from s3_endpoint import S3Server
from services import Process, redis_answers, start, unavailable


@pytest.mark.slow
def test_redis_server_answers_ping(redis_server: str) -> None:
    prefix, port = redis_server.rsplit(":", 1)
    assert prefix == "redis://127.0.0.1"
    assert port.endswith("/0")
    assert redis_answers(int(port.removesuffix("/0")))


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.mark.slow
def test_an_outage_refuses_connections_and_keeps_the_objects(
    s3_server: S3Server, s3_bucket: dict[str, Any]
) -> None:
    bucket, port = s3_bucket["OPTIONS"]["bucket_name"], s3_server.relay.port
    client = s3_server.client()
    client.put_object(Bucket=bucket, Key="kept", Body=b"before the outage")
    # A connection open when the endpoint goes down is dropped with it.
    held = socket.create_connection(("127.0.0.1", port))
    with s3_server.down():
        assert not s3_server.running
        assert refused(port)
        held.settimeout(5)
        # Dropped: closed (an end of stream), or reset when the relay closes
        # it before it was accepted whole; never left open.
        try:
            ended = held.recv(1)
        except ConnectionResetError:
            ended = b""
        assert ended == b""
        held.close()
    assert (s3_server.running, s3_server.endpoint_url) == (True, f"https://127.0.0.1:{port}")
    assert client.get_object(Bucket=bucket, Key="kept")["Body"].read() == b"before the outage"


@pytest.mark.slow
def test_stop_and_start_twice_are_harmless(s3_server: S3Server) -> None:
    s3_server.stop()
    s3_server.stop()
    s3_server.start()
    s3_server.start()
    assert s3_server.running
    assert not refused(s3_server.relay.port)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent, here init) is no process.
    status = Path(f"/proc/{pid}/stat")
    return not status.exists() or status.read_text().split(") ", 1)[1][0] != "Z"


def test_stopping_a_process_stops_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shell and its child ignore SIGTERM: the SIGKILL to the whole group
    # ends both, the child included, which killing the shell alone would not.
    monkeypatch.setattr(services, "STOP_SECONDS", 0.5)
    script = "trap '' TERM; sleep 300 & echo $! > child; wait"
    process = Process(["sh", "-c", script], tmp_path / "log", tmp_path)
    child_file = tmp_path / "child"
    while not (child_file.exists() and child_file.read_text().endswith("\n")):
        time.sleep(0.01)
    child = int(child_file.read_text())
    process.stop()
    assert not process.running()
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(child)
    process.stop()  # twice: nothing left to stop


def test_a_server_that_exits_at_once_fails_after_three_attempts(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "import sys; print('port taken'); sys.exit(3)"]
    with pytest.raises(pytest.fail.Exception) as failed:
        start("quitter", lambda port: command, lambda port: False, tmp_path)
    assert str(failed.value) == (
        "quitter exited before it answered, 3 times; the last: exit status 3, output:\nport taken\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"quitter-{n}.log" for n in (1, 2, 3)]


def test_a_missing_service_skips_or_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SITEMAPKIT_TEST_REQUIRE_SERVICES", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"^no thing: install it$"):
        unavailable("no thing: install it")
    monkeypatch.setenv("SITEMAPKIT_TEST_REQUIRE_SERVICES", "1")
    with pytest.raises(pytest.fail.Exception) as failed:
        unavailable("no thing: install it")
    assert str(failed.value) == (
        "no thing: install it (SITEMAPKIT_TEST_REQUIRE_SERVICES=1: the services are required)"
    )
