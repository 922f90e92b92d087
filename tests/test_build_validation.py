from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from django_sitemapkit.build.destinations import Staging
from django_sitemapkit.build.validation import validate_staged
from django_sitemapkit.encoding.encoder import SITEMAPINDEX, URLSET
from django_sitemapkit.exceptions import BuildError

NAME = "sitemap-articles-1.xml"


def staged(tmp_path: Path, content: bytes, name: str = NAME) -> tuple[Staging, str]:
    staging = Staging(str(tmp_path))
    staging.path(name).write_bytes(content)
    staging.path(name + ".gz").write_bytes(gzip.compress(content, mtime=0))
    return staging, name


def validate(staging: Staging, name: str) -> None:
    # As a build passes them: each file and its gzip sibling.
    validate_staged(staging, [name + ".gz", name])


def test_a_valid_page_and_index_pass(tmp_path: Path) -> None:
    page = URLSET.opening + b"<url><loc>https://www.example.com/</loc></url>\n" + URLSET.closing
    validate(*staged(tmp_path, page))
    index = (
        SITEMAPINDEX.opening
        + b"<sitemap><loc>https://www.example.com/sitemap-a-1.xml</loc></sitemap>\n"
        + SITEMAPINDEX.closing
    )
    validate(*staged(tmp_path, index, "sitemap.xml"))


def test_a_schema_error_names_the_file_and_the_problem(tmp_path: Path) -> None:
    page = URLSET.opening + b"<url><priority>2</priority></url>\n" + URLSET.closing
    with pytest.raises(BuildError) as raised:
        validate(*staged(tmp_path, page))
    assert str(raised.value).startswith(f"{NAME} is not valid against sitemap.xsd: ")
    assert "priority" in str(raised.value)


def test_a_cut_document_is_not_well_formed(tmp_path: Path) -> None:
    with pytest.raises(BuildError) as raised:
        validate(*staged(tmp_path, URLSET.opening))
    assert str(raised.value).startswith(f"{NAME} is not well-formed XML: ")


def test_a_gzip_sibling_must_hold_the_same_bytes(tmp_path: Path) -> None:
    page = URLSET.opening + b"<url><loc>https://www.example.com/</loc></url>\n" + URLSET.closing
    staging, name = staged(tmp_path, page)
    staging.path(NAME + ".gz").write_bytes(gzip.compress(page + b"\n", mtime=0))
    with pytest.raises(BuildError) as raised:
        validate(staging, name)
    assert str(raised.value) == f"{NAME}.gz does not decompress to {NAME}."
