"""``build_sitemaps --validate``: every staged file checked against the official schemas."""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from django_sitemapkit.destinations import BuildError, Staging
from django_sitemapkit.locations import GZIP_SUFFIX, INDEX_FILENAME

if TYPE_CHECKING:
    from lxml import etree

    from django_sitemapkit.build import BuiltFile


@cache
def schema(name: str) -> etree.XMLSchema:
    from lxml import etree

    path = files("django_sitemapkit") / "schemas" / name
    return etree.XMLSchema(etree.fromstring(path.read_bytes()))


def validate_staged(staging: Staging, built: Iterable[BuiltFile]) -> None:
    """Raise ``BuildError`` naming the first file that is not schema-valid or whose
    ``.gz`` sibling does not decompress to the same bytes."""
    try:
        import lxml  # noqa: F401
    except ImportError as exc:
        raise BuildError(
            "--validate needs lxml: pip install 'django-sitemapkit[validate]'."
        ) from exc
    for item in built:
        schema_name = "siteindex.xsd" if item.name == INDEX_FILENAME else "sitemap.xsd"
        path = staging.path(item.name)
        validate_file(path, item.name, schema_name)
        if item.gzip_size is not None:
            check_gzip_sibling(path, staging.path(item.name + GZIP_SUFFIX), item.name)


def validate_file(path: Path, name: str, schema_name: str) -> None:
    from lxml import etree

    # No entity expansion, no network: the file is parsed as data only.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        document = etree.parse(str(path), parser)
    except etree.XMLSyntaxError as exc:
        raise BuildError(f"{name} is not well-formed XML: {exc}.") from exc
    try:
        schema(schema_name).assertValid(document)
    except etree.DocumentInvalid as exc:
        raise BuildError(f"{name} is not valid against {schema_name}: {exc}.") from exc


def check_gzip_sibling(path: Path, gzip_path: Path, name: str) -> None:
    with gzip.open(gzip_path, "rb") as compressed:
        if compressed.read() != path.read_bytes():
            raise BuildError(f"{name}{GZIP_SUFFIX} does not decompress to {name}.")
