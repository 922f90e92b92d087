"""Built files in django-storages' ``S3Storage``, read in two requests instead of six.

Through the Storage API a response costs a HEAD request for each of
``exists()``, ``open()``, ``size()`` and ``get_modified_time()``, then the
download's own HEAD and its GET. Here the HEAD that ``open()`` makes anyway
(``S3File`` loads the object's metadata, and raises ``FileNotFoundError`` for
a missing key) gives the size and time of the validators, so a 304 or a
``HEAD`` costs that one request; and a body is one GET, whose answer gives the
headers sent with it: if a build replaced the object between the two, the
new bytes go out with their own size and validators.

Importing this module imports neither django-storages nor boto3: a storage of
that class exists only if ``STORAGES`` imported its module (and s3transfer,
boto3's, is imported only to read from one).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import IO, Any

from django.core.files import File
from django.core.files.storage import Storage

from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.views.stores import OpenFile, StorageDirectory, epoch_ns, reaching

S3_MODULE = "storages.backends.s3"


def read_as_s3(storage: Storage) -> bool:
    """Whether ``storage`` is django-storages' ``S3Storage`` and opens files its way (a
    subclass that opens them otherwise is read through the Storage API)."""
    module = sys.modules.get(S3_MODULE)
    s3_storage = getattr(module, "S3Storage", None)
    if not isinstance(s3_storage, type) or not isinstance(storage, s3_storage):
        return False
    return getattr(type(storage), "_open", None) is getattr(s3_storage, "_open", None)


class S3Directory(StorageDirectory):
    """An ``S3Storage``, or the names in it under a prefix."""

    def open(self, name: str) -> OpenFile | None:
        stored_name = self.prefix + name
        with reaching(self.alias):
            try:
                file = self.storage.open(stored_name, "rb")  # one HEAD request
            except FileNotFoundError:
                return None
            try:
                stored = file.obj  # type: ignore[attr-defined]
                if compressed_by_storage(self.storage, stored_name, stored.content_encoding):
                    file.close()
                    return super().open(name)
                return S3Object(
                    file,
                    stored.content_length,
                    epoch_ns(stored.last_modified),
                    self.alias,
                    parameters=self.download_parameters(stored_name),
                )
            except BaseException:
                file.close()
                raise

    def download_parameters(self, name: str) -> dict[str, Any]:
        """What ``S3File`` sends with its requests for ``name`` (a customer-provided
        encryption key, say): the object parameters a download accepts."""
        from s3transfer.constants import ALLOWED_DOWNLOAD_ARGS

        wanted = self.storage.get_object_parameters(name)  # type: ignore[attr-defined]
        return {key: value for key, value in wanted.items() if key in ALLOWED_DOWNLOAD_ARGS}


def compressed_by_storage(storage: Storage, name: str, coding: str | None) -> bool:
    """Whether the storage compressed the file itself on upload, and decompresses it
    when it reads it: with ``gzip`` on, a file of its ``gzip_content_types``.

    A ``.gz`` file is stored as it was written, the gzip file of its ``.xml``
    (S3Storage only marks it ``Content-Encoding: gzip``, from its name): sent
    as it is stored, where the storage's own reads would decompress it.
    """
    return (
        bool(getattr(storage, "gzip", False))
        and coding == "gzip"
        and not name.endswith(GZIP_SUFFIX)
    )


@dataclass
class S3Object(OpenFile):
    """An object whose HEAD was read; its body is fetched only if it is sent."""

    parameters: dict[str, Any] = field(default_factory=dict)
    downloaded: Any = None  # botocore's StreamingBody, once fetched

    def body(self) -> IO[bytes] | File[bytes]:
        stored = self.file.obj  # type: ignore[union-attr]
        try:
            answer = stored.get(**self.parameters)
        except stored.meta.client.exceptions.NoSuchKey as exc:
            raise FileNotFoundError(f"{stored.key} was deleted since its HEAD request") from exc
        self.file.close()  # holds nothing: the S3File never downloaded anything
        self.size = answer["ContentLength"]
        self.modified_ns = epoch_ns(answer["LastModified"])
        self.downloaded = answer["Body"]
        body: IO[bytes] = self.downloaded
        return body

    def close(self) -> None:
        if self.downloaded is not None:
            self.downloaded.close()
        super().close()
