"""A notification: what a record has pending, posted in batches within
``SITEMAPKIT_INDEXNOW_DEADLINE``, each answer written back to the record."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from logging import WARNING

from django.urls import NoReverseMatch, reverse

from django_sitemapkit.conf import conf
from django_sitemapkit.indexnow.endpoint import Answer
from django_sitemapkit.indexnow.sender import ATTEMPTS, Deadline, Outcome, Sender, seconds
from django_sitemapkit.indexnow.state import REMOVED_ROUNDS, State
from django_sitemapkit.indexnow.submission import Notice, Submission, plural, report
from django_sitemapkit.locations.policy import URL_NAMESPACE, stable_script_prefix
from django_sitemapkit.sites.configured import SitemapSite

logger = logging.getLogger("django_sitemapkit")

#: indexnow.org, "Submitting set of URLs": up to 10,000 URLs per POST.
MAX_URLS_PER_REQUEST = 10_000
KEPT = "left pending for the next build."
#: What becomes of a notification whose record cannot be read: of what it sent.
DOING = "what was sent is not recorded"
#: ...: of what the record holds.
LATER = "nothing is sent now (the next build sends what it holds)"


def key_location(site: SitemapSite, key: str) -> str:
    """The URL of the key file on ``site``: where ``django_sitemapkit.urls`` serves it,
    or at the root of the host if it does not (a web server may)."""
    try:
        with stable_script_prefix():
            path = reverse(f"{URL_NAMESPACE}:indexnow_key", kwargs={"key": key})
    except NoReverseMatch:
        path = f"/{key}.txt"  # sitemapkit.W022
    return site.base_url + path


def send(site: SitemapSite, notice: Notice, *, sleep: Callable[[float], object]) -> Submission:
    """Post the URLs pending in ``notice``'s record (or the changes it could not keep),
    in batches of at most 10,000 in URL order, within ``SITEMAPKIT_INDEXNOW_DEADLINE``.

    Accepted (2xx), a batch is remembered as such; refused as malformed (400,
    422), dropped and logged; on 403 (the key file not found yet) the rest stays
    pending; on 429, a server error or no answer, a batch is tried ``ATTEMPTS``
    times in all while the deadline leaves time, then it and the rest stay
    pending. Raises nothing for what the network or the endpoint does.
    """
    endpoint = conf.INDEXNOW_ENDPOINT
    if notice.refused:
        return Submission(endpoint, problems=tuple(notice.problems))
    deadline = Deadline(conf.INDEXNOW_DEADLINE)
    stale, pending = notice.update(begin, LATER)
    if stale:
        report(
            notice.problems,
            f"{plural(len(stale), 'removed URL')} dropped, such as {stale[0]!r}: pending "
            f"through {REMOVED_ROUNDS} notifications without being accepted. A crawler that "
            "fetches a removed URL finds it gone all the same.",
            WARNING,
        )
    dropped = notice.dropped + len(stale)
    sender = Sender(endpoint, conf.INDEXNOW_TIMEOUT, deadline, sleep)
    tally = Tally()
    post_all(site, notice, sender, pending, tally)
    submission = Submission(
        endpoint,
        sender.requests,
        tally.sent,
        tally.accepted,
        len(pending) - tally.accepted - tally.refused,
        dropped + tally.refused,
        tuple(notice.problems),
    )
    logger.info("%s", submission.summary())
    return submission


@dataclass
class Tally:
    """URLs posted, accepted, and refused for good, by one notification."""

    sent: int = 0
    accepted: int = 0
    refused: int = 0


def post_all(
    site: SitemapSite, notice: Notice, sender: Sender, pending: list[tuple[str, str]], tally: Tally
) -> None:
    """Post ``pending`` in batches, each answer recorded, until one is left for later."""
    key = str(conf.INDEXNOW_KEY)
    location = key_location(site, key)
    for start in range(0, len(pending), MAX_URLS_PER_REQUEST):
        left = plural(len(pending) - start, "URL")
        if sender.deadline.left() <= 0:
            report(notice.problems, f"{sender.deadline.named()} ran out: {left} {KEPT}", WARNING)
            return
        batch = pending[start : start + MAX_URLS_PER_REQUEST]
        urls = [url for url, _ in batch]
        payload = {"host": site.origin.host, "key": key, "keyLocation": location, "urlList": urls}
        outcome = sender.send(payload)
        tally.sent += len(batch)
        if not answered(notice, batch, outcome.answer, sender.endpoint, tally):
            # Nothing wrong with the URLs: they are tried again by the next build.
            why = stopped(sender, outcome, location)
            report(notice.problems, f"{why} {left} {KEPT}", WARNING)
            return


def answered(
    notice: Notice, batch: list[tuple[str, str]], answer: Answer, endpoint: str, tally: Tally
) -> bool:
    """Record ``answer`` to ``batch``; ``False`` if it and the rest are left pending."""
    if answer.accepted:
        notice.update(partial(State.settle, batch=batch, accepted=True), DOING)
        tally.accepted += len(batch)
        return True
    if answer.status in (400, 422):
        # 400: not in the protocol's format; 422: URLs not of the host, or a key
        # not of the schema. The same request would be refused again.
        notice.update(partial(State.settle, batch=batch, accepted=False), DOING)
        tally.refused += len(batch)
        report(
            notice.problems,
            f"{plural(len(batch), 'URL')} refused: {answer.told_by(endpoint)}. They are "
            "dropped: sent again, they would be refused again.",
        )
        return True
    return False


def begin(state: State) -> tuple[list[str], list[tuple[str, str]]]:
    """The removed URLs pending through ``REMOVED_ROUNDS`` notifications already,
    dropped now, and what is left pending, in URL order."""
    return state.age(), sorted(state.pending.items())


def stopped(sender: Sender, outcome: Outcome, location: str) -> str:
    """Why the batches from this one on are left pending."""
    answer = outcome.answer
    told = answer.told_by(sender.endpoint)
    if answer.status == 403:
        return (
            f"{told}. The key file {location} was not found, or does not hold the key: is it "
            "deployed?"
        )
    if outcome.cut_short is not None:
        return (
            f"{told}; trying again in {seconds(outcome.cut_short)} would end past "
            f"{sender.deadline.named()}."
        )
    if answer.temporary:
        return f"{told}, {ATTEMPTS} times."
    return f"{told}, which is no IndexNow answer: is SITEMAPKIT_INDEXNOW_ENDPOINT right?"
