"""``build_sitemaps --validate``: every file of the new set checked against the official
schemas, those written and those kept."""

from __future__ import annotations

import gzip
import os
import shutil
from collections.abc import Iterable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from django_sitemapkit.build.destinations import Destination, Staging
from django_sitemapkit.encoding.encoder import NAMESPACE
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import GZIP_SUFFIX, INDEX_FILENAME

if TYPE_CHECKING:
    from lxml import etree


#: The driver that imports sitemap.xsd and the extension schemas (schemas/README.md).
EXTENSIONS_SCHEMA = "urlset-extensions.xsd"
# xhtml1-strict.xsd imports the XML namespace's schema by this URL.
XML_XSD_URL = "http://www.w3.org/2001/xml.xsd"


@cache
def schema(name: str) -> etree.XMLSchema:
    from lxml import etree

    path = Path(str(files("django_sitemapkit") / "schemas" / name))
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    parser.resolvers.add(offline_resolver(path.parent))
    # Parsed from its path, so that imports by relative name find the copies beside it.
    return etree.XMLSchema(etree.parse(str(path), parser))


def offline_resolver(directory: Path) -> etree.Resolver:
    from lxml import etree

    class OfflineResolver(etree.Resolver):
        """Answers the one import by URL from the local stand-in; never the network."""

        def resolve(  # type: ignore[override]
            self, system_url: str, public_id: str | None, context: object
        ) -> object:
            if system_url == XML_XSD_URL:
                return self.resolve_filename(  # type: ignore[attr-defined]
                    str(directory / "xml.xsd"), context
                )
            return None

    return OfflineResolver()


def schema_for(document: etree._ElementTree, name: str) -> str:
    """The schema a document is checked against: the driver when it uses an extension."""
    if name == INDEX_FILENAME:
        return "siteindex.xsd"
    declared = set(document.getroot().nsmap.values())
    return "sitemap.xsd" if declared <= {NAMESPACE} else EXTENSIONS_SCHEMA


def validate_set(destination: Destination, written: list[str], kept: list[str]) -> None:
    """Validate the new set: each file written, and each one kept as published (read
    back into staging where it is not there already, as a storage's is not).

    A distributed build's pages were validated by the workers that rendered
    them: here only the files staged on this machine are. A kept ``.gz`` is not
    read again: a validating build checked that it decompresses to the bytes the
    manifest records of its ``.xml`` (``integrity.py``), which are validated.
    """
    pages = [name for name in kept if not name.endswith(GZIP_SUFFIX)]
    for name in pages:
        if not os.path.lexists(destination.staging.path(name)):
            fetch(destination, name)
    validate_staged(destination.staging, destination.local_names(written) + pages)


def fetch(destination: Destination, name: str) -> None:
    opened = destination.open_published(name)
    if opened is None:
        raise BuildError(f"{name} is no longer in {destination.label}; build again.")
    with opened as published, open(destination.staging.path(name), "xb") as copy:
        shutil.copyfileobj(published, copy)


def validate_staged(staging: Staging, names: Iterable[str]) -> None:
    """Raise ``BuildError`` naming the first staged file that is not schema-valid or
    whose ``.gz`` sibling does not decompress to the same bytes."""
    try:
        import lxml  # noqa: F401
    except ImportError as exc:
        raise BuildError(
            "--validate needs lxml: pip install 'django-sitemapkit[validate]'."
        ) from exc
    written = set(names)
    for name in sorted(written):
        if name.endswith(GZIP_SUFFIX):
            continue
        path = staging.path(name)
        validate_file(path, name)
        if name + GZIP_SUFFIX in written:
            check_gzip_sibling(path, staging.path(name + GZIP_SUFFIX), name)


def validate_file(path: Path, name: str) -> None:
    from lxml import etree

    # No entity expansion, no network: the file is parsed as data only.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        document = etree.parse(str(path), parser)
    except etree.XMLSyntaxError as exc:
        raise BuildError(f"{name} is not well-formed XML: {exc}.") from exc
    schema_name = schema_for(document, name)
    try:
        schema(schema_name).assertValid(document)
    except etree.DocumentInvalid as exc:
        raise BuildError(f"{name} is not valid against {schema_name}: {exc}.") from exc


def check_gzip_sibling(path: Path, gzip_path: Path, name: str) -> None:
    with gzip.open(gzip_path, "rb") as compressed:
        if compressed.read() != path.read_bytes():
            raise BuildError(f"{name}{GZIP_SUFFIX} does not decompress to {name}.")
