"""The index of a build: one entry per file written, and what a one-section build keeps
of the published index for the other sections."""

from __future__ import annotations

import datetime as dt
import logging
import xml.etree.ElementTree as ElementTree

from django_sitemapkit.build.destinations import Destination, Staging
from django_sitemapkit.build.render import write_document
from django_sitemapkit.build.report import BuildOptions, BuiltFile, SectionBuild
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.encoder import NAMESPACE, SITEMAPINDEX, XML_DECLARATION, Encoder, Entry
from django_sitemapkit.exceptions import BuildError, InvalidEntry
from django_sitemapkit.locations import sitemap_directory
from django_sitemapkit.names import GZIP_SUFFIX, INDEX_FILENAME, section_of, without_gzip_suffix
from django_sitemapkit.pipeline import index_runs
from django_sitemapkit.registry import registry
from django_sitemapkit.values import format_lastmod

logger = logging.getLogger("django_sitemapkit")


def index_entries(
    site: SitemapSite, builds: list[SectionBuild], kept: list[Entry], options: BuildOptions
) -> list[Entry]:
    """One entry per file built, in registry order, with ``kept`` entries of other sections."""
    base = site.base_url + sitemap_directory()
    suffix = GZIP_SUFFIX if options.gzip_links else ""
    built = {
        build.section: [Entry(base + f.name + suffix, f.newest) for f in build.files]
        for build in builds
    }
    others: dict[str | None, list[Entry]] = {}
    for entry in kept:
        section = section_of(entry.loc)
        if section is not None:
            # Rebuilt on today's base URL and link style, like the new entries.
            name = without_gzip_suffix(entry.loc.rsplit("/", 1)[-1])
            entry = Entry(base + name + suffix, entry.lastmod)
        others.setdefault(section, []).append(entry)
    entries: list[Entry] = []
    for source in registry.sections(site):
        name = type(source).name
        kept_for_section = others.pop(name, [])
        entries += built.pop(name) if name in built else kept_for_section
    for remaining in others.values():
        entries += remaining
    return entries


def render_index(staging: Staging, entries: list[Entry], options: BuildOptions) -> BuiltFile:
    if len(entries) > MAX_URLS:
        raise BuildError(
            f"The build has {len(entries):,} files, more than the {MAX_URLS:,} one index may "
            "list; raise SITEMAPKIT_LIMIT or the sources' limit so fewer files are needed."
        )
    encoder = Encoder(SITEMAPINDEX, max_bytes=conf.MAX_BYTES)
    size, gzip_size = write_document(
        staging, INDEX_FILENAME, encoder.stream(index_runs(entries)), options.gzip
    )
    if encoder.cut:
        raise BuildError(
            f"The index of {len(entries):,} files passes SITEMAPKIT_MAX_BYTES "
            f"({conf.MAX_BYTES:,} bytes); raise the setting or the sources' limit."
        )
    return BuiltFile(INDEX_FILENAME, encoder.count, size, gzip_size, encoder.newest)


def existing_index_entries(destination: Destination) -> list[Entry]:
    """The entries of the published index, which a one-section build keeps for the others."""
    content = destination.read(INDEX_FILENAME)
    if content is None:
        raise BuildError(
            f"There is no {INDEX_FILENAME} in {destination.label} to update; run "
            "build_sitemaps without --section once first."
        )
    # The index may have been edited, or planted, since the last build: only
    # what a build writes is taken from it. No DTD is read at all (entity
    # expansion, external entities), only the names of our own page files, and
    # only a lastmod of the shape the encoder writes.
    # The declaration is checked byte for byte: in another encoding (UTF-16)
    # a DOCTYPE would not show as these bytes.
    if not content.startswith(XML_DECLARATION) or b"<!DOCTYPE" in content:
        raise BuildError(
            f"{INDEX_FILENAME} in {destination.label} is not an index a build writes (its "
            "first line differs, or it has a DOCTYPE); run build_sitemaps without --section "
            "to replace it."
        )
    try:
        root = ElementTree.fromstring(content)
    except ElementTree.ParseError as exc:
        raise BuildError(
            f"{INDEX_FILENAME} in {destination.label} is not valid XML: {exc}."
        ) from exc
    namespace = {"sm": NAMESPACE}
    entries = []
    for item in root.iterfind("sm:sitemap", namespace):
        loc = (item.findtext("sm:loc", "", namespace) or "").strip()
        lastmod = item.findtext("sm:lastmod", None, namespace)
        if section_of(loc) is None:
            logger.warning(
                "Left out %r of %s in %s: it names no sitemap file of a build.",
                loc[:200],
                INDEX_FILENAME,
                destination.label,
            )
            continue
        entries.append(Entry(loc, lastmod if is_written_lastmod(lastmod) else None))
    return entries


def is_written_lastmod(text: str | None) -> bool:
    """Whether ``text`` is a lastmod exactly as ``format_lastmod()`` writes it (which
    also makes it a real date: no 2024-13-45)."""
    if text is None:
        return False
    try:
        value = dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)
        if isinstance(value, dt.datetime) and value.tzinfo is None:
            return False  # the encoder writes every datetime with its offset
        return format_lastmod(value) == text
    except (ValueError, InvalidEntry):
        return False
