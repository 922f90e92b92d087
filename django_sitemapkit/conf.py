"""Settings, read live from ``django.conf.settings`` so ``override_settings`` works."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from typing import Any

from django.conf import settings

# sitemaps.org protocol, "Sitemap file location" and "Sitemap index files":
# a file holds at most 50,000 URLs and at most 50 MiB uncompressed.
MAX_URLS = 50_000
MAX_BYTES = 52_428_800

#: Values of ``SITEMAPKIT_SERVE``.
SERVE_CHOICES = ("database", "files", "files-or-database")


class Settings:
    """Every ``SITEMAPKIT_*`` setting with its default, in one place."""

    defaults: dict[str, Any] = {
        "BASE_URL": None,
        "SITES": None,
        "SITE_SCHEME": "https",
        "LIMIT": MAX_URLS,
        "STRICT": False,
        "CHUNK_SIZE": 2_000,
        "X_ROBOTS_TAG": None,
        "MAX_BYTES": MAX_BYTES,
        "OUTPUT_DIR": None,
        "STORAGE": None,
        "GZIP": True,
        "GZIP_LINKS": False,
        "SERVE": "database",
        "FULL_BUILD_EVERY": dt.timedelta(days=1),
        # Google News: "only include articles that were published in the last two days".
        "NEWS_MAX_AGE": dt.timedelta(days=2),
        "INDEXNOW_KEY": None,
        "INDEXNOW_ENDPOINT": "https://api.indexnow.org/indexnow",
        "INDEXNOW_TIMEOUT": 10,
        "DATABASE": None,
        "QUEUE": None,
        "TASK_BACKEND": "default",
        "SHARD_TIMEOUT": dt.timedelta(minutes=10),
        "SHARD_ATTEMPTS": 3,
        "BUILD_DEADLINE": dt.timedelta(hours=6),
    }

    def _get(self, name: str) -> Any:
        return getattr(settings, f"SITEMAPKIT_{name}", self.defaults[name])

    def raw(self, name: str) -> object:
        """The setting as the project wrote it, for the system checks to judge."""
        value: object = self._get(name)
        return value

    @property
    def BASE_URL(self) -> str | None:
        """Scheme and host (and port) every ``<loc>`` is built on."""
        value: str | None = self._get("BASE_URL")
        return value

    @property
    def SITES(self) -> Mapping[str, str] | str | None:
        """Several sites: a mapping of name to base URL, or ``"django.contrib.sites"``
        for one site per ``Site`` row."""
        value: Mapping[str, str] | str | None = self._get("SITES")
        return value

    @property
    def SITE_SCHEME(self) -> str:
        """The scheme put before a ``Site``'s domain, which records none."""
        value: str = self._get("SITE_SCHEME")
        return value

    @property
    def LIMIT(self) -> int:
        """URLs per sitemap page; a source may set a lower ``limit``."""
        value: int = self._get("LIMIT")
        return value

    @property
    def STRICT(self) -> bool:
        """Raise on invalid entries instead of skipping and logging them."""
        value: bool = self._get("STRICT")
        return value

    @property
    def CHUNK_SIZE(self) -> int:
        """Rows fetched from the database per round trip while streaming."""
        value: int = self._get("CHUNK_SIZE")
        return value

    @property
    def X_ROBOTS_TAG(self) -> str | None:
        """Opt-in ``X-Robots-Tag`` header value for sitemap responses."""
        value: str | None = self._get("X_ROBOTS_TAG")
        return value

    @property
    def MAX_BYTES(self) -> int:
        """Uncompressed bytes per document; the protocol's 50 MiB unless lowered."""
        value: int = self._get("MAX_BYTES")
        return value

    @property
    def OUTPUT_DIR(self) -> str | os.PathLike[str] | None:
        """Directory ``build_sitemaps`` writes to (and files are served from)."""
        value: str | os.PathLike[str] | None = self._get("OUTPUT_DIR")
        return value

    @property
    def STORAGE(self) -> str | None:
        """A ``STORAGES`` alias to write (and serve) the files through instead."""
        value: str | None = self._get("STORAGE")
        return value

    @property
    def GZIP(self) -> bool:
        """Write a deterministic ``.xml.gz`` sibling next to every file."""
        value: bool = self._get("GZIP")
        return value

    @property
    def GZIP_LINKS(self) -> bool:
        """Point the index's entries at the ``.xml.gz`` names."""
        value: bool = self._get("GZIP_LINKS")
        return value

    @property
    def SERVE(self) -> str:
        """Where the views answer from: ``"database"``, ``"files"`` or ``"files-or-database"``."""
        value: str = self._get("SERVE")
        return value

    @property
    def FULL_BUILD_EVERY(self) -> dt.timedelta | None:
        """How often ``build_sitemaps`` renders every shard, not only those whose rows,
        newest lastmod or keys changed; ``None``: only with ``--full``."""
        value: dt.timedelta | None = self._get("FULL_BUILD_EVERY")
        return value

    @property
    def NEWS_MAX_AGE(self) -> dt.timedelta:
        """How old an article a news section still lists."""
        value: dt.timedelta = self._get("NEWS_MAX_AGE")
        return value

    @property
    def INDEXNOW_KEY(self) -> str | None:
        """The IndexNow key, served at ``/<key>.txt``; ``None`` turns IndexNow off."""
        value: str | None = self._get("INDEXNOW_KEY")
        return value

    @property
    def INDEXNOW_ENDPOINT(self) -> str:
        """The URL changed URLs are posted to; the engines that take IndexNow share it."""
        value: str = self._get("INDEXNOW_ENDPOINT")
        return value

    @property
    def INDEXNOW_TIMEOUT(self) -> float:
        """Seconds an IndexNow request may take to connect, and between bytes of the answer."""
        value: float = self._get("INDEXNOW_TIMEOUT")
        return value

    @property
    def DATABASE(self) -> str | None:
        """The ``DATABASES`` alias every section's rows are read from (a read replica);
        ``None``: the queryset's own, which Django's database routers choose."""
        value: str | None = self._get("DATABASE")
        return value

    @property
    def QUEUE(self) -> str | None:
        """The queue a distributed build's shards are sent to; ``None``: the engine's
        default queue."""
        value: str | None = self._get("QUEUE")
        return value

    @property
    def TASK_BACKEND(self) -> str:
        """The ``TASKS`` backend ``build_sitemaps --via tasks`` enqueues shards on."""
        value: str = self._get("TASK_BACKEND")
        return value

    @property
    def SHARD_TIMEOUT(self) -> dt.timedelta:
        """How long a worker may render one shard before it is presumed lost (and the
        shard sent again)."""
        value: dt.timedelta = self._get("SHARD_TIMEOUT")
        return value

    @property
    def SHARD_ATTEMPTS(self) -> int:
        """How many times a distributed build sends a shard whose worker was lost."""
        value: int = self._get("SHARD_ATTEMPTS")
        return value

    @property
    def BUILD_DEADLINE(self) -> dt.timedelta:
        """How long a distributed build waits for its shards in all before it gives up."""
        value: dt.timedelta = self._get("BUILD_DEADLINE")
        return value


conf = Settings()
