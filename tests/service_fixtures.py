"""Fixtures of the servers in services.py and s3_endpoint.py (a pytest plugin, loaded by
conftest.py).

Each server is started once per test process (each xdist worker has its own),
by the first test that asks for it, on a free port of 127.0.0.1.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from relay import Relay
from s3_endpoint import S3Server, empty_bucket, https_answers, moto_command, write_certificate
from services import redis_answers, redis_command, require_modules, require_program, start

S3_PACKAGES = "the 'distributed' dependency group of pyproject.toml (moto[server], boto3, "
S3_PACKAGES += "django-storages[s3])"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Redis server of its own: its URL, ``redis://127.0.0.1:<port>/0``."""
    program = require_program(
        "redis-server",
        fallback="/usr/bin/redis-server",
        install="Debian's redis-server package (apt-get install --no-install-recommends "
        "redis-server)",
    )
    directory = tmp_path_factory.mktemp("redis")
    process, port = start(
        "redis-server", redis_command(program, directory), redis_answers, directory
    )
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.stop()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 server over HTTPS; see ``S3Server`` for ``stop()`` and ``start()``."""
    require_modules("moto.server", "flask", "boto3", "storages", install=S3_PACKAGES)
    directory = tmp_path_factory.mktemp("s3")
    certificate, key = write_certificate(directory)
    process, port = start(
        "moto-server", moto_command(certificate, key), https_answers(certificate), directory
    )
    relay = Relay(port)
    try:
        relay.start()
        yield S3Server(process, relay, certificate)
    finally:
        relay.stop()
        process.stop()


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> Iterator[dict[str, Any]]:
    """A new, empty bucket: the ``STORAGES`` entry of django-storages' S3Storage on it.

    Deleted with its objects after the test, the endpoint started again first
    if the test left it stopped.
    """
    s3_server.start()
    name = f"sitemapkit-{uuid.uuid4().hex[:16]}"
    client = s3_server.client()
    client.create_bucket(Bucket=name)
    try:
        yield s3_server.storage(name)
    finally:
        s3_server.start()
        empty_bucket(client, name)
        client.delete_bucket(Bucket=name)
