"""A page fetched for ultimate-sitemap-parser: the crawler tests fetch through the
Django test client or a live server, and hand usp the bytes in this shape."""

from __future__ import annotations

from usp.web_client.abstract_client import AbstractWebClientSuccessResponse


class Answer(AbstractWebClientSuccessResponse):
    def __init__(self, url: str, headers: dict[str, str], body: bytes) -> None:
        self._url = url
        self._headers = {name.lower(): value for name, value in headers.items()}
        self._body = body

    def status_code(self) -> int:
        return 200

    def status_message(self) -> str:
        return "OK"

    def header(self, case_insensitive_name: str) -> str | None:
        return self._headers.get(case_insensitive_name.lower())

    def raw_data(self) -> bytes:
        return self._body

    def url(self) -> str:
        return self._url
