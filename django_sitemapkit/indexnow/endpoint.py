"""One IndexNow request and its answer, by ``urllib.request``: a POST that never
raises for what the network or the endpoint does, retried while the answer says
to try again later."""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import Message
from typing import Any

logger = logging.getLogger("django_sitemapkit")

#: Requests per batch before it is left for the next build: the first and three more.
ATTEMPTS = 4
#: Seconds before the first retry, doubled for each next one, where the answer
#: has no ``Retry-After``.
FIRST_DELAY = 1.0
#: The longest ``Retry-After`` waited for: a build is not held for an hour;
#: its URLs stay pending for the next build instead.
MAX_DELAY = 60.0
#: How much of an answer's body is read, to quote in a message.
ANSWER_BYTES = 500
# indexnow.org, "Submitting set of URLs": JSON in UTF-8, and the header that says so.
HEADERS = {
    "Content-Type": "application/json; charset=utf-8",
    "User-Agent": "django-sitemapkit",
}


class NoRedirects(urllib.request.HTTPRedirectHandler):
    # urllib follows a 301 or 302 of a POST as a GET without the body (as RFC
    # 9110 section 15.4 lets a client do): the URLs would be lost on the way.
    # The redirect is the answer, then, and is reported.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


OPENER = urllib.request.build_opener(NoRedirects)


@dataclass(frozen=True)
class Answer:
    """An endpoint's answer; ``status`` is ``None`` when none came."""

    status: int | None
    #: The reason phrase, or why nothing answered.
    reason: str
    #: The start of the body, for a message.
    body: str = ""
    retry_after: float | None = None

    @property
    def accepted(self) -> bool:
        # 200 OK: submitted; 202 Accepted: received, the key still to be checked.
        return self.status is not None and 200 <= self.status < 300

    @property
    def temporary(self) -> bool:
        """429 Too Many Requests, a server error, or no answer: worth another try."""
        return self.status is None or self.status == 429 or 500 <= self.status < 600

    def told_by(self, endpoint: str) -> str:
        """What happened, as a message's first words: ``<endpoint> answered 429 ...``."""
        if self.status is None:
            return f"{endpoint} could not be reached ({self.reason})"
        told = f": {self.body!r}" if self.body else ""
        return f"{endpoint} answered {self.status} {self.reason}{told}"


def post(endpoint: str, payload: Mapping[str, object], timeout: float) -> Answer:
    """POST ``payload`` as JSON to ``endpoint``."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    try:
        request = urllib.request.Request(endpoint, data=body, headers=HEADERS, method="POST")
        with OPENER.open(request, timeout=timeout) as response:
            return Answer(response.status, response.reason, start_of(response))
    except urllib.error.HTTPError as exc:
        with exc:
            return Answer(exc.code, str(exc.reason), start_of(exc), retry_after(exc.headers))
    except urllib.error.URLError as exc:
        return Answer(None, str(exc.reason))
    # OSError: a reset or a timeout while the answer is read; HTTPException: an
    # answer that is no HTTP; ValueError: an endpoint urllib cannot post to.
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return Answer(None, str(exc) or type(exc).__name__)


def start_of(response: Any) -> str:
    try:
        data: bytes = response.read(ANSWER_BYTES)
    except (OSError, http.client.HTTPException):
        return ""
    return " ".join(data.decode("utf-8", "replace").split())


def retry_after(headers: Message | None) -> float | None:
    """A ``Retry-After`` in seconds (RFC 9110 section 10.2.3), at most ``MAX_DELAY``;
    ``None`` for none, or for the HTTP-date form, which the backoff stands in for."""
    value = headers.get("Retry-After") if headers is not None else None
    if value is None or not value.strip().isdigit():
        return None
    return min(float(value.strip()), MAX_DELAY)


@dataclass
class Sender:
    """Posts batches to one endpoint, counting the requests made."""

    endpoint: str
    timeout: float
    sleep: Callable[[float], object]
    requests: int = 0

    def send(self, payload: Mapping[str, object]) -> Answer:
        """The answer to ``payload``, asked again while it is temporary, at most
        ``ATTEMPTS`` times; waits for ``Retry-After`` or the backoff in between."""
        answer = self.post(payload)
        for attempt in range(1, ATTEMPTS):
            if not answer.temporary:
                break
            delay = answer.retry_after
            if delay is None:
                delay = FIRST_DELAY * 2 ** (attempt - 1)
            logger.warning(
                "IndexNow: %s; trying again in %g seconds.", answer.told_by(self.endpoint), delay
            )
            self.sleep(delay)
            answer = self.post(payload)
        return answer

    def post(self, payload: Mapping[str, object]) -> Answer:
        self.requests += 1
        return post(self.endpoint, payload, self.timeout)
