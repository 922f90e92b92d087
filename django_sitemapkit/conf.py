"""Settings, read live from ``django.conf.settings`` so ``override_settings`` works."""

from __future__ import annotations

from typing import Any

from django.conf import settings

# sitemaps.org protocol, "Sitemap file location" and "Sitemap index files":
# a file holds at most 50,000 URLs and at most 50 MiB uncompressed.
MAX_URLS = 50_000
MAX_BYTES = 52_428_800


class Settings:
    """Every ``SITEMAPKIT_*`` setting with its default, in one place."""

    defaults: dict[str, Any] = {
        "BASE_URL": None,
        "LIMIT": MAX_URLS,
        "STRICT": False,
        "CHUNK_SIZE": 2_000,
        "X_ROBOTS_TAG": None,
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


conf = Settings()
