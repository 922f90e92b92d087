"""A section that loses most of its URLs refused before the publish: more than half
of its rows gave no URL, and more than half of its first rows read again were
invalid, not left out by choice (``sources/losses.py``). The published set stays
as it was, and the error names the cause and the fix, where the log alone would
have had one warning per reason and a sitemap of a few URLs."""

from __future__ import annotations

from collections.abc import Iterable

from django_sitemapkit.build.manifest import Shard
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.losses import first_rows_loss
from django_sitemapkit.sources.plan import compile_plan


class SectionLost(BuildError):
    """A section most of whose rows give no URL."""


def refuse_losses(site: SitemapSite, sources: Iterable[BaseSource], shards: list[Shard]) -> None:
    """``SectionLost`` for the first of ``sources`` whose ``shards`` skipped more than
    half their rows, and whose first rows confirm it is a loss (not exclusions)."""
    counts: dict[str, tuple[int, int]] = {}
    for shard in shards:
        rows, skipped = counts.get(shard.section, (0, 0))
        counts[shard.section] = (rows + shard.rows, skipped + shard.skipped)
    for source in sources:
        rows, skipped = counts.get(type(source).name, (0, 0))
        # The shards' counts first: a section that lost little costs no query.
        if skipped * 2 <= rows:
            continue
        loss = first_rows_loss(compile_plan(source, site))
        if loss.most:
            raise SectionLost(f"{loss.describe(site)} {loss.fix(site)}")
