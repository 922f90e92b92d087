"""Responses from the files ``build_sitemaps`` wrote, in a directory or through a storage.

Used when ``SITEMAPKIT_SERVE`` is ``"files"`` or ``"files-or-database"``: no
query is made, and the validators and length describe the file actually sent.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import re
import stat
from dataclasses import dataclass
from typing import IO

from django.core.exceptions import ImproperlyConfigured, SuspiciousFileOperation
from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from django_sitemapkit.conf import conf
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.names import GZIP_SUFFIX, INDEX_FILENAME
from django_sitemapkit.negotiation import accepts_gzip
from django_sitemapkit.values import aware_utc

XML_CONTENT_TYPE = "application/xml; charset=utf-8"
# RFC 6713: the media type of a gzip file. Sent without Content-Encoding, the
# body is the file itself and a client keeps it compressed.
GZIP_CONTENT_TYPE = "application/gzip"
FILE_MODES = ("files", "files-or-database")

# Every name the views ask for is one of the built files' names, made of these
# characters; anything else (a separator, "..", a drive letter) is refused
# before a path is built, so no other file can be reached.
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# O_NOFOLLOW: a symbolic link in the directory could point anywhere, and the
# command writes none among the files (only the directory is a link).
# O_NONBLOCK: opening a FIFO must not hang a worker.
OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
)
# open(2) fails with ELOOP on a symbolic link under O_NOFOLLOW (EMLINK on the
# BSDs), and with ENXIO on a UNIX socket: neither is a built file.
NOT_A_FILE = {errno.ELOOP, errno.EMLINK, errno.ENXIO}
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
FILE_BLOCK_SIZE = 256 * 1024


@dataclass
class OpenFile:
    """A built file, open, with what its directory or storage can tell about it."""

    file: IO[bytes] | File[bytes]  # from a directory, or from a storage
    size: int | None
    modified_ns: int | None

    @property
    def modified(self) -> int | None:
        """Whole seconds since the epoch, as ``Last-Modified`` has them."""
        return None if self.modified_ns is None else self.modified_ns // 1_000_000_000

    def etag(self, coding: str | None) -> str | None:
        """A strong validator (RFC 9110 section 8.8.3) from modification time and size.

        It must differ between the representations of one URL, so the
        gzip-encoded one is marked; without both values there is none.
        """
        if self.modified_ns is None or self.size is None:
            return None
        marker = "" if coding is None else f"-{coding}"
        return f'"{self.modified_ns:x}-{self.size:x}{marker}"'


class LocalDirectory:
    """``SITEMAPKIT_OUTPUT_DIR``: validators from ``fstat()`` of the open file, so they
    describe the bytes sent even if a new build is published meanwhile.

    The directory is a symbolic link to the current build's (``build/directory.py``),
    resolved once: every file a response reads (the ``.xml`` or its ``.gz``) comes
    from the same build, even if the link moves while it is read.
    """

    def __init__(self, path: str) -> None:
        self.path = os.path.realpath(path)

    def open(self, name: str) -> OpenFile | None:
        try:
            descriptor = os.open(os.path.join(self.path, name), OPEN_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno in NOT_A_FILE:
                return None
            raise
        try:
            status = os.fstat(descriptor)
            if stat.S_ISREG(status.st_mode):
                return OpenFile(os.fdopen(descriptor, "rb"), status.st_size, status.st_mtime_ns)
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)  # a directory, a FIFO, a device: not a built file
        return None

    def exists(self, name: str) -> bool:
        try:
            status = os.lstat(os.path.join(self.path, name))
        except (FileNotFoundError, NotADirectoryError):
            return False
        return stat.S_ISREG(status.st_mode)

    def has_set(self) -> bool:
        return self.exists(INDEX_FILENAME)


class StorageDirectory:
    """``SITEMAPKIT_STORAGE``: validators from ``size()`` and ``get_modified_time()``,
    left out where the storage does not implement them."""

    def __init__(self, storage: Storage, prefix: str = "") -> None:
        self.storage = storage
        self.prefix = prefix

    def open(self, name: str) -> OpenFile | None:
        name = self.prefix + name
        if not self.storage.exists(name):
            return None
        try:
            file = self.storage.open(name, "rb")
        except FileNotFoundError:
            return None  # deleted since exists()
        try:
            return OpenFile(file, self.size(name), self.modified_ns(name))
        except BaseException:
            file.close()
            raise

    def exists(self, name: str) -> bool:
        return self.storage.exists(self.prefix + name)

    def has_set(self) -> bool:
        return self.exists(INDEX_FILENAME)

    def size(self, name: str) -> int | None:
        try:
            return self.storage.size(name)
        except NotImplementedError:
            return None

    def modified_ns(self, name: str) -> int | None:
        try:
            modified = self.storage.get_modified_time(name)
        except NotImplementedError:
            return None
        # A naive value (USE_TZ = False) is in the project's time zone.
        delta = aware_utc(modified) - EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def built_files(site: SitemapSite) -> LocalDirectory | StorageDirectory:
    """Where ``site``'s files are: the directory or storage itself for a project's only
    site, a directory (or prefix) named after the site for each of several."""
    # The order build_sitemaps writes in, should both be set (sitemapkit.E021).
    if conf.OUTPUT_DIR is not None:
        return LocalDirectory(site_directory(os.fspath(conf.OUTPUT_DIR), site))
    if conf.STORAGE is not None:
        storage = storages[conf.STORAGE]
        directory = local_directory(storage)
        # A storage on the local disk (FileSystemStorage) is served as a
        # directory is, so a symbolic link, a FIFO or a directory planted under
        # a sitemap's name is refused the same way.
        if directory is None:
            return StorageDirectory(storage, site_prefix(site))
        return LocalDirectory(site_directory(directory, site))
    raise ImproperlyConfigured(
        f"SITEMAPKIT_SERVE is {conf.SERVE!r} but neither SITEMAPKIT_OUTPUT_DIR nor "
        "SITEMAPKIT_STORAGE is set, so there are no files to serve."
    )


def local_directory(storage: Storage) -> str | None:
    """The directory a storage keeps its files in, if its files are plain files there.

    ``InMemoryStorage`` answers ``path()`` too, with a path that is not on the
    disk; a ``FileSystemStorage`` subclass that reads its files its own way
    (decrypting them, say) is read through its API.
    """
    plain = getattr(type(storage), "_open", None) is getattr(FileSystemStorage, "_open", None)
    if isinstance(storage, FileSystemStorage) and plain:
        return os.fspath(storage.location)
    return None


def site_directory(root: str, site: SitemapSite) -> str:
    return os.path.join(root, site.name) if site.several else root


def site_prefix(site: SitemapSite) -> str:
    """What a storage's names for ``site`` start with."""
    return f"{site.name}/" if site.several else ""


def file_response(request: HttpRequest, name: str, site: SitemapSite) -> HttpResponseBase | None:
    """``site``'s built file ``name`` (``sitemap.xml``, ``sitemap-posts-1.xml.gz``, ...),
    or ``None`` when it has not been built."""
    if not FILE_NAME.fullmatch(name):
        raise SuspiciousFileOperation(f"{name!r} is not the name of a built sitemap file.")
    files = built_files(site)
    if name.endswith(GZIP_SUFFIX):
        opened = files.open(name)
        return None if opened is None else respond(request, opened, GZIP_CONTENT_TYPE)
    return negotiated_response(request, files, name)


def negotiated_response(
    request: HttpRequest, files: LocalDirectory | StorageDirectory, name: str
) -> HttpResponseBase | None:
    """The ``.xml`` file, or its ``.gz`` sibling sent with ``Content-Encoding: gzip``
    to a client that accepts it (RFC 9110 section 8.4)."""
    sibling = name + GZIP_SUFFIX
    if accepts_gzip(request.headers.get("Accept-Encoding")):
        opened = files.open(sibling)
        if opened is not None:
            return respond(request, opened, XML_CONTENT_TYPE, coding="gzip", vary=True)
        has_sibling = False
    else:
        has_sibling = files.exists(sibling)
    opened = files.open(name)
    if opened is None:
        return None
    # Vary on both variants (RFC 9110 section 12.5.5), so a cache never hands
    # the compressed one to a client that did not ask for it, or the reverse.
    return respond(request, opened, XML_CONTENT_TYPE, vary=has_sibling)


def respond(
    request: HttpRequest,
    opened: OpenFile,
    content_type: str,
    *,
    coding: str | None = None,
    vary: bool = False,
) -> HttpResponseBase:
    headers = file_headers(opened, coding, vary)
    head = HttpResponse(content_type=content_type, headers=headers)
    answer = get_conditional_response(
        request, etag=headers.get("ETag"), last_modified=opened.modified, response=head
    )
    if answer is not head or request.method == "HEAD":
        # A 304 or 412 is the whole answer (Django copies the validators and
        # Vary of ``head`` into a 304); HEAD gets every header of GET and no
        # body (RFC 9110 section 9.3.2).
        opened.file.close()
        assert answer is not None
        return answer
    response = FileResponse(opened.file, content_type=content_type, headers=headers)
    # Read whenever the server does not send the file itself (wsgi.file_wrapper):
    # under ASGI each block is one hop to a thread, and Django's 4 KiB made a
    # 9 MB page 2,300 of them.
    response.block_size = FILE_BLOCK_SIZE
    # FileResponse names a storage's file in Content-Disposition: a sitemap is
    # read, not downloaded, and the .xml URL may be backed by the .gz file.
    response.headers.pop("Content-Disposition", None)
    return response


def file_headers(opened: OpenFile, coding: str | None, vary: bool) -> dict[str, str]:
    headers: dict[str, str] = {}
    if opened.size is not None:
        headers["Content-Length"] = str(opened.size)
    if coding is not None:
        headers["Content-Encoding"] = coding
    if vary:
        headers["Vary"] = "Accept-Encoding"
    etag = opened.etag(coding)
    if etag is not None:
        headers["ETag"] = etag
    if opened.modified is not None:
        headers["Last-Modified"] = http_date(opened.modified)
    if conf.X_ROBOTS_TAG:
        headers["X-Robots-Tag"] = conf.X_ROBOTS_TAG
    return headers
