"""Responses from the files ``build_sitemaps`` wrote, in a directory or through a storage.

Used when ``SITEMAPKIT_SERVE`` is ``"files"`` or ``"files-or-database"``: no
query is made, and the validators and length describe the file actually sent.
Where the files are read from is ``stores.py`` (and ``s3.py``); where a site's
files live, ``sites/places.py``.
"""

from __future__ import annotations

import re

from django.core.exceptions import ImproperlyConfigured, SuspiciousFileOperation
from django.core.files.storage import storages
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from django_sitemapkit.conf import conf
from django_sitemapkit.names import GZIP_SUFFIX
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.places import files_place, site_directory
from django_sitemapkit.views.negotiation import accepts_gzip
from django_sitemapkit.views.s3 import S3Directory, read_as_s3
from django_sitemapkit.views.stores import (
    LocalDirectory,
    OpenFile,
    StorageDirectory,
    StorageUnavailable,
    local_directory,
    reaching,
)

# Imported from here by the views and robots.py.
__all__ = [
    "FILE_MODES",
    "GZIP_CONTENT_TYPE",
    "XML_CONTENT_TYPE",
    "StorageUnavailable",
    "built_files",
    "file_response",
]

XML_CONTENT_TYPE = "application/xml; charset=utf-8"
# RFC 6713: the media type of a gzip file. Sent without Content-Encoding, the
# body is the file itself and a client keeps it compressed.
GZIP_CONTENT_TYPE = "application/gzip"
FILE_MODES = ("files", "files-or-database")

# Every name the views ask for is one of the built files' names, made of these
# characters; anything else (a separator, "..", a drive letter) is refused
# before a path is built, so no other file can be reached.
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
FILE_BLOCK_SIZE = 256 * 1024


def built_files(site: SitemapSite) -> LocalDirectory | StorageDirectory:
    """Where ``site``'s files are: the directory or storage itself for a project's only
    site, a directory (or prefix) named after the site for each of several."""
    place = files_place(site)
    if place is None:
        raise ImproperlyConfigured(
            f"SITEMAPKIT_SERVE is {conf.SERVE!r} but neither SITEMAPKIT_OUTPUT_DIR nor "
            "SITEMAPKIT_STORAGE is set, so there are no files to serve."
        )
    if place.directory is not None:
        return LocalDirectory(place.directory)
    assert place.storage is not None
    storage = storages[place.storage]
    directory = local_directory(storage)
    # A storage on the local disk (FileSystemStorage) is served as a directory
    # is, so a symbolic link, a FIFO or a directory planted under a sitemap's
    # name is refused the same way.
    if directory is not None:
        return LocalDirectory(site_directory(directory, site))
    if read_as_s3(storage):
        return S3Directory(place.storage, storage, place.prefix)
    return StorageDirectory(place.storage, storage, place.prefix)


def file_response(request: HttpRequest, name: str, site: SitemapSite) -> HttpResponseBase | None:
    """``site``'s built file ``name`` (``sitemap.xml``, ``sitemap-posts-1.xml.gz``, ...),
    or ``None`` when it has not been built.

    Raises ``StorageUnavailable`` when the storage fails (the views answer 503).
    """
    if not FILE_NAME.fullmatch(name):
        raise SuspiciousFileOperation(f"{name!r} is not the name of a built sitemap file.")
    files = built_files(site)
    try:
        if name.endswith(GZIP_SUFFIX):
            opened = files.open(name)
            return None if opened is None else respond(request, opened, GZIP_CONTENT_TYPE)
        return negotiated_response(request, files, name)
    except FileNotFoundError:
        # Found, then gone before it was read: a build removed it meanwhile.
        return None


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
        opened.close()
        assert answer is not None
        return answer
    try:
        # Inside, so that a storage that fails as it starts sending the file
        # (FileResponse reads a storage's file to measure it) gives a 503.
        with reaching(opened.alias):
            body = opened.body()
            # Once more: a storage that fetched the file only now (S3) has set
            # the size and time of what it fetched, the bytes sent.
            headers = file_headers(opened, coding, vary)
            response = FileResponse(body, content_type=content_type, headers=headers)
    except BaseException:
        opened.close()
        raise
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
