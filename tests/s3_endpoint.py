"""moto's S3 server, over HTTPS on 127.0.0.1, for the tests of S3 storages.

moto rather than Azurite (or another emulator): it installs with pip into the
test environment, with nothing else to run it (Azurite needs Node.js), and it
speaks the S3 API, which most deployments use, on AWS or on the many
S3-compatible services. Over HTTPS, so that boto3 sends its uploads as it does
to a real endpoint: aws-chunked, with a checksum trailer (over plain HTTP it
puts the checksum in a header instead).
"""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import ssl
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from relay import Relay
from services import Process

#: Dummy credentials and region: moto accepts any, and no real ones are ever read.
S3_ACCESS_KEY = "testing"
S3_SECRET_KEY = "testing"
S3_REGION = "us-east-1"


def write_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (PEM): clients verify the
    endpoint against the certificate itself, as against a CA."""
    # cryptography comes with moto, which needs it; imported only once moto is.
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sitemapkit test S3")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certificate_file, key_file = directory / "s3.crt", directory / "s3.key"
    certificate_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certificate_file, key_file


def moto_command(certificate: Path, key: Path) -> Callable[[int], list[str]]:
    def command(port: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "moto.server",
            "-H",
            "127.0.0.1",
            "-p",
            str(port),
            "-c",
            str(certificate),
            "-k",
            str(key),
        ]

    return command


def https_answers(certificate: Path) -> Callable[[int], bool]:
    """Whether an HTTPS server that presents ``certificate`` answers any request."""
    context = ssl.create_default_context(cafile=str(certificate))

    def answers(port: int) -> bool:
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=context)
        try:
            connection.request("GET", "/")
            connection.getresponse().read()
        except OSError:  # refused, reset, or TLS not up yet (ssl.SSLError is one)
            return False
        finally:
            connection.close()
        return True

    return answers


class S3Server:
    """moto's S3 server over HTTPS, reached through a relay that can be cut.

    ``endpoint_url`` is the relay's. ``stop()`` plays an outage: the port
    refuses connections and those open are dropped, while the buckets and
    their objects are kept; ``start()`` brings the endpoint back on the same
    port. Both return once done, and either may be called twice.
    """

    def __init__(self, process: Process, relay: Relay, certificate: Path) -> None:
        self.process = process
        self.relay = relay
        #: The CA file to verify the endpoint with (``verify`` of boto3 and S3Storage).
        self.certificate = certificate

    @property
    def endpoint_url(self) -> str:
        return f"https://127.0.0.1:{self.relay.port}"

    @property
    def running(self) -> bool:
        return self.relay.running

    def stop(self) -> None:
        self.relay.stop()

    def start(self) -> None:
        if not self.process.running():
            pytest.fail(f"moto's server has exited; its output:\n{self.process.output()}")
        self.relay.start()

    @contextmanager
    def down(self) -> Iterator[None]:
        """The endpoint refuses connections inside the block, and answers after it."""
        self.stop()
        try:
            yield
        finally:
            self.start()

    def client(self) -> Any:
        """A boto3 S3 client of this endpoint, for a test to look at the buckets."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            aws_access_key_id=S3_ACCESS_KEY,
            aws_secret_access_key=S3_SECRET_KEY,
            region_name=S3_REGION,
            verify=str(self.certificate),
        )

    def storage(self, bucket: str) -> dict[str, Any]:
        """The ``STORAGES`` entry of django-storages' S3Storage on ``bucket``."""
        # boto3's default checksums are left on (request_checksum_calculation
        # and response_checksum_validation "when_supported"): over HTTPS every
        # upload is sent aws-chunked with a CRC32 trailer, which many
        # S3-compatible servers refused after boto3 1.36 made it the default
        # (django-storages issue #1482). The storage must work with them.
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "endpoint_url": self.endpoint_url,
                "bucket_name": bucket,
                "access_key": S3_ACCESS_KEY,
                "secret_key": S3_SECRET_KEY,
                "region_name": S3_REGION,
                "verify": str(self.certificate),
                "file_overwrite": True,
                "querystring_auth": False,
            },
        }


def empty_bucket(client: Any, bucket: str) -> None:
    """Deletes every object of ``bucket`` (with boto3's ``client``)."""
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        keys = [{"Key": stored["Key"]} for stored in page.get("Contents", [])]
        if keys:
            client.delete_objects(Bucket=bucket, Delete={"Objects": keys})
