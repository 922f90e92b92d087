"""The servers and workers of the distributed cases, started by the benchmark itself
and always stopped, all on 127.0.0.1: Debian's Redis (Celery's broker and result
backend), moto's S3 server with one bucket, and Celery's workers (``celery -A
mysite worker``, concurrency 1 each), each on a free port of its own.

``Services`` is a context manager: whatever happens inside it (a failed build,
Ctrl-C, SIGTERM), everything it started is stopped on the way out, each process
by its id (a worker with its pool, by its process group); each also gets
SIGTERM if the benchmark dies first (Linux's parent-death signal). Their logs
are in a temporary directory, printed in part when a start fails.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from django.core.management.base import CommandError

REDIS_SERVER = "/usr/bin/redis-server"
BUCKET = "sitemaps"
# moto accepts any credentials; boto3 (in every process) finds these.
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
START_SECONDS = 60.0
STOP_SECONDS = 20.0
# Objects downloaded at once to hash them.
HASH_THREADS = 8
PR_SET_PDEATHSIG = 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def die_with_parent() -> None:
    """In the child, before it runs: SIGTERM when the benchmark's process ends."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def peak_memory(pid: int) -> int | None:
    """A process's peak resident set (VmHWM), in bytes; ``None`` if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return None


class Services:
    """Redis, moto's S3 server and a bucket, and ``workers`` Celery workers."""

    def __init__(self, base_env: dict[str, str], workers: int, log: Callable[[str], None]):
        self.base_env = base_env
        self.workers = workers
        self.log = log
        self.directory = Path(tempfile.mkdtemp(prefix="sitemapkit-distributed-"))
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.environment: dict[str, str] = {}
        self.client: Any = None
        self.restore_sigterm: Any = signal.SIG_DFL

    def __enter__(self) -> Services:
        self.restore_sigterm = signal.signal(signal.SIGTERM, interrupted)
        try:
            self.start()
        except BaseException:
            self.stop(keep_logs=False)  # wait() has shown the log that matters
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop(keep_logs=error is not None)

    def start(self) -> None:
        redis_port, s3_port = free_port(), free_port()
        endpoint = f"http://127.0.0.1:{s3_port}"
        redis = [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(redis_port)]
        redis += ["--save", "", "--appendonly", "no", "--dir", str(self.directory)]
        self.spawn("redis", redis, os.environ.copy())
        self.spawn(
            "moto", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(s3_port)]
        )
        self.wait("redis", lambda: redis_answers(redis_port))
        self.wait("moto", lambda: http_answers(endpoint))
        import boto3  # type: ignore[import-untyped,unused-ignore]

        self.client = boto3.client("s3", endpoint_url=endpoint, **lower(CREDENTIALS))
        self.client.create_bucket(Bucket=BUCKET)
        self.environment = {
            **CREDENTIALS,
            "EXAMPLE_S3_ENDPOINT": endpoint,
            "EXAMPLE_S3_BUCKET": BUCKET,
            "EXAMPLE_CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        }
        for number in range(1, self.workers + 1):
            name = f"worker{number}"
            command = [sys.executable, "-m", "celery", "-A", "mysite", "worker"]
            command += ["-c", "1", "-n", f"w{number}@%h", "-l", "info"]
            command += ["-I", "bench.distributed_worker"]
            command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
            self.spawn(name, command, {**self.base_env, **self.environment})
        for number in range(1, self.workers + 1):
            name = f"worker{number}"
            self.wait(name, partial(self.says_ready, name))
        self.log(
            f"Started Redis on port {redis_port}, moto's S3 on port {s3_port} (bucket "
            f"{BUCKET!r}) and {self.workers} Celery workers; logs in {self.directory}."
        )

    def says_ready(self, name: str) -> bool:
        """Whether the Celery worker ``name`` has logged that it is ready."""
        return b" ready." in self.log_path(name).read_bytes()

    def log_path(self, name: str) -> Path:
        return self.directory / f"{name}.log"

    def spawn(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        with open(self.log_path(name), "wb") as output:
            self.processes[name] = subprocess.Popen(
                command,
                env={**(env or self.base_env), **CREDENTIALS},
                cwd=Path(__file__).resolve().parents[1],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )

    def wait(self, name: str, ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + START_SECONDS
        process = self.processes[name]
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            with contextlib.suppress(OSError):
                if ready():
                    return
            time.sleep(0.1)
        tail = self.log_path(name).read_text(errors="replace")[-2000:]
        state = "exited" if process.poll() is not None else f"not ready in {START_SECONDS:.0f} s"
        raise CommandError(f"{name} {state}; the end of its log:\n{tail}")

    def empty_bucket(self) -> None:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
        for page in pages:
            keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
            if keys:
                self.client.delete_objects(Bucket=BUCKET, Delete={"Objects": keys})

    def keys(self) -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def read(self, key: str) -> bytes:
        content: bytes = self.client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        return content

    def digests(self) -> dict[str, str]:
        """Every object in the bucket, by key: the SHA-256 of its bytes."""

        def digest(key: str) -> str:
            body = self.client.get_object(Bucket=BUCKET, Key=key)["Body"]
            sha = hashlib.sha256()
            for chunk in body.iter_chunks(1024 * 1024):
                sha.update(chunk)
            return sha.hexdigest()

        keys = self.keys()
        with ThreadPoolExecutor(HASH_THREADS) as pool:
            return dict(zip(keys, pool.map(digest, keys), strict=True))

    def peak_memory(self) -> dict[str, int | None]:
        """The peak resident set of each server and worker process (VmHWM): a worker's
        main process, not its pool's (the results carry those)."""
        return {name: peak_memory(process.pid) for name, process in self.processes.items()}

    def stop(self, keep_logs: bool) -> None:
        """Stop everything started, the workers first (a warm shutdown: each finishes
        its shard) and then the servers, SIGKILL to whatever still runs after
        STOP_SECONDS; the logs are removed unless ``keep_logs``."""
        try:
            workers = [name for name in self.processes if name.startswith("worker")]
            servers = [name for name in self.processes if name not in workers]
            for group in (workers, servers):
                running = [self.processes[name] for name in group]
                for process in running:
                    if process.poll() is None:
                        process.terminate()
                deadline = time.monotonic() + STOP_SECONDS
                for process in running:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        process.wait(max(deadline - time.monotonic(), 0.1))
            for process in self.processes.values():
                with contextlib.suppress(ProcessLookupError):
                    # The worker's pool processes are in its process group.
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        finally:
            signal.signal(signal.SIGTERM, self.restore_sigterm)
            self.processes.clear()
            if keep_logs:
                self.log(f"The servers' and workers' logs are kept in {self.directory}.")
            else:
                shutil.rmtree(self.directory, ignore_errors=True)


def interrupted(number: int, frame: FrameType | None) -> None:
    """SIGTERM while the services run: unwind (stopping them), as Ctrl-C would."""
    raise KeyboardInterrupt


def lower(credentials: dict[str, str]) -> dict[str, str]:
    return {
        "aws_access_key_id": credentials["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": credentials["AWS_SECRET_ACCESS_KEY"],
        "region_name": credentials["AWS_DEFAULT_REGION"],
    }


def redis_answers(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
        connection.sendall(b"PING\r\n")
        return connection.recv(64).startswith(b"+PONG")


def http_answers(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=1) as response:
        return bool(response.status == 200)
