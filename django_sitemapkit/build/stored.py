"""A file saved in a Django storage under exactly the name asked for: a storage
that would rename it (``name_1.xml``) beside the old one must not publish."""

from __future__ import annotations

from typing import IO

from django.core.files import File
from django.core.files.storage import Storage

from django_sitemapkit.exceptions import BuildError


def save_exact(storage: Storage, stored_name: str, content: IO[bytes], label: str) -> None:
    """Save ``content`` as ``stored_name``, replacing the file of that name if any."""
    if storage.exists(stored_name) and storage.get_available_name(stored_name) != stored_name:
        # This storage would save beside the old file under another name, so
        # the old one must go first: a moment with no file. Storages that
        # overwrite (S3 with file_overwrite, FileSystemStorage with
        # allow_overwrite) replace it in one write instead.
        storage.delete(stored_name)
    saved = storage.save(stored_name, File(content, name=stored_name.rpartition("/")[2]))
    if saved != stored_name:
        raise BuildError(
            f"{label} saved {stored_name!r} as {saved!r}; the storage must keep the exact "
            "name (it should not rename files that exist)."
        )
