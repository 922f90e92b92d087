"""S3Storage subclasses for the tests, named by STORAGES: imported only then, once the
s3_server fixture found django-storages installed."""

from __future__ import annotations

from typing import Any

from storages.backends.s3 import S3Storage


class OwnOpen(S3Storage):  # type: ignore[misc]
    """Opens its files its own way (here, as S3Storage does, through the override a
    project would write): the views read it through the Storage API alone."""

    def _open(self, name: str, mode: str = "rb") -> Any:
        return super()._open(name, mode)
