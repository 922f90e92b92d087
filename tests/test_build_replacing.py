"""A file written beside its name and put in its place whole, or not at all."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from django_sitemapkit.build.replacing import ReplacingFile


def test_the_file_is_in_place_only_once_whole(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text("the last one")
    written = ReplacingFile(str(path), "utf-8")
    written.out.write("caf\u00e9")
    assert path.read_text() == "the last one"
    assert [child.name for child in tmp_path.iterdir() if child != path] == [
        Path(written.temporary).name
    ]
    assert Path(written.temporary).name.startswith(".report.json.")
    written.replace()
    assert path.read_text(encoding="utf-8") == "caf\u00e9"
    assert list(tmp_path.iterdir()) == [path]


def test_its_mode_is_a_new_files_of_the_user(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        written = ReplacingFile(str(tmp_path / "report.json"), "ascii")
    finally:
        os.umask(umask)
    written.replace()
    assert stat.S_IMODE((tmp_path / "report.json").stat().st_mode) == 0o640


def test_a_discarded_file_leaves_the_last_one(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text("the last one")
    written = ReplacingFile(str(path), "ascii")
    written.out.write("half")
    written.discard()
    written.discard()
    assert list(tmp_path.iterdir()) == [path]
    assert path.read_text() == "the last one"


def test_no_directory_no_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ReplacingFile(str(tmp_path / "nowhere" / "report.json"), "ascii")
