"""When a recorded shard is rendered again whatever its rows say: a date it left out
is now due, or the periodic full check (``SITEMAPKIT_FULL_BUILD_EVERY``) has come."""

from __future__ import annotations

import datetime as dt

from django_sitemapkit.build.manifest import Manifest, Shard
from django_sitemapkit.conf import conf
from django_sitemapkit.sources.json_values import TAGGED
from django_sitemapkit.values import Horizon, format_lastmod


def left_out_date(shard: Shard, built: dt.datetime) -> bool:
    """Whether the range's newest ``lastmod`` was later than a build at ``built`` wrote:
    its row went without it (``values.Horizon``), so the shard is rendered again,
    until the date is written."""
    recorded = None if shard.stats is None else shard.stats["lastmod"]
    if not isinstance(recorded, dict) or len(recorded) != 1:
        return False
    ((tag, text),) = recorded.items()
    if tag not in ("date", "datetime"):
        return False
    return Horizon(built).passed(format_lastmod(TAGGED[tag](text)))


def full_check_due(recorded: Manifest, now: dt.datetime) -> bool:
    """Whether ``SITEMAPKIT_FULL_BUILD_EVERY`` has passed since every shard was rendered."""
    every = conf.FULL_BUILD_EVERY
    return every is not None and now - recorded.full_check_at() >= every
