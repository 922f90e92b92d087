"""The requests of one submission: each batch posted and asked again while the answer
says to try later, all within the submission's deadline
(``SITEMAPKIT_INDEXNOW_DEADLINE``), so that one notification has a known longest
duration whatever the endpoint does."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from django_sitemapkit.indexnow.endpoint import Answer, post

logger = logging.getLogger("django_sitemapkit")

#: Requests per batch before it is left for the next build: the first and three more.
ATTEMPTS = 4
#: Seconds before the first retry, doubled for each next one, where the answer
#: has no ``Retry-After``.
FIRST_DELAY = 1.0


def seconds(value: float) -> str:
    return "1 second" if value == 1 else f"{value:g} seconds"


@dataclass
class Deadline:
    """The end of a submission: no request runs, and no wait lasts, past it."""

    seconds: float
    ends: float = field(init=False)

    def __post_init__(self) -> None:
        self.ends = time.monotonic() + self.seconds

    def left(self) -> float:
        return self.ends - time.monotonic()

    def named(self) -> str:
        return f"SITEMAPKIT_INDEXNOW_DEADLINE ({seconds(self.seconds)})"


@dataclass(frozen=True)
class Outcome:
    """The last answer to a batch, and why no other request was made for it."""

    answer: Answer
    #: A wait the deadline left no time for (the answer asked to try again).
    cut_short: float | None = None


@dataclass
class Sender:
    """Posts batches to one endpoint, counting the requests made."""

    endpoint: str
    #: The longest one request may take (``SITEMAPKIT_INDEXNOW_TIMEOUT``).
    timeout: float
    deadline: Deadline
    sleep: Callable[[float], object]
    requests: int = 0

    def send(self, payload: Mapping[str, object]) -> Outcome:
        """The answer to ``payload``, asked again while it is temporary, at most
        ``ATTEMPTS`` times; waits for ``Retry-After`` or the backoff in between,
        unless that wait would end past the deadline."""
        answer = self.post(payload)
        for attempt in range(1, ATTEMPTS):
            if not answer.temporary:
                break
            delay = answer.retry_after
            if delay is None:
                delay = FIRST_DELAY * 2 ** (attempt - 1)
            if delay >= self.deadline.left():
                return Outcome(answer, cut_short=delay)
            logger.warning(
                "IndexNow: %s; trying again in %g seconds.", answer.told_by(self.endpoint), delay
            )
            self.sleep(delay)
            answer = self.post(payload)
        return Outcome(answer)

    def post(self, payload: Mapping[str, object]) -> Answer:
        self.requests += 1
        left = self.deadline.left()
        if left < self.timeout:
            return post(
                self.endpoint, payload, max(left, 0.0), f"what was left of {self.deadline.named()}"
            )
        limit = f"SITEMAPKIT_INDEXNOW_TIMEOUT ({seconds(self.timeout)})"
        return post(self.endpoint, payload, self.timeout, limit)
