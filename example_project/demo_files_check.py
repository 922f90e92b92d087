"""Check the files ``manage.py build_sitemaps`` wrote, and the views serving them.

Usage::

    python demo_files_check.py built DIR --site NAME=BASE_URL [--site ...] [--summary-file PATH]
    python demo_files_check.py snapshot DIR [--bytes-only]
    python demo_files_check.py served SERVER DIR --site NAME=BASE_URL [--site ...]
        [--server-pid PID] [--summary-file PATH]

DIR is ``SITEMAPKIT_OUTPUT_DIR``. With several sites each has its files in a
directory of its own, ``DIR/<site name>/``; with one site they are in DIR.

``built``
    for each site: every ``.xml`` in its directory is valid against the package's schemas (the index
    against ``siteindex.xsd``, the pages against ``sitemap.xsd``); every ``.xml``
    has a ``.xml.gz`` sibling that decompresses to its exact bytes (and has no
    time stamp or file name in its header, so it is deterministic); the index
    names exactly the page files on disk, each with the newest ``lastmod`` of
    that page; every location is on the site's own host; the URL counts match
    the database; no staged file is left over.
``snapshot``
    one line per sitemap file in DIR and its site directories: SHA-256, size,
    modification time (not with ``--bytes-only``) and path, for ``diff`` to
    compare two builds.
``served``
    with the server at SERVER running ``SITEMAPKIT_SERVE=files``: for each site
    (its host in the ``Host`` header), ``/sitemap.xml`` and every page, fetched
    without and with ``Accept-Encoding: gzip`` and as ``.xml.gz``, are
    the bytes of the site's files (the ``.gz`` file's bytes, with
    ``Content-Encoding: gzip``, when gzip is accepted); a conditional GET answers
    304; a page that was not built is a 404.

Everything checked is printed; the first failure ends it with exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.error
from pathlib import Path

from demo_built_files import built, snapshot
from demo_http import CheckFailed, site_argument
from demo_served_files import served


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check_built = commands.add_parser("built", help="check the files on disk")
    check_built.add_argument("directory", type=Path)
    check_built.add_argument(
        "--site", type=site_argument, action="append", required=True, metavar="NAME=BASE_URL"
    )
    check_built.add_argument("--page-size", type=int, default=50_000)
    check_built.add_argument("--summary-file", type=Path)
    take = commands.add_parser("snapshot", help="print a line per file, for diff")
    take.add_argument("directory", type=Path)
    take.add_argument("--bytes-only", action="store_true", help="leave modification times out")
    check_served = commands.add_parser("served", help="compare SITEMAPKIT_SERVE=files answers")
    check_served.add_argument("server", help="where runserver listens: http://127.0.0.1:PORT")
    check_served.add_argument("directory", type=Path)
    check_served.add_argument(
        "--site", type=site_argument, action="append", required=True, metavar="NAME=BASE_URL"
    )
    check_served.add_argument("--server-pid", type=int)
    check_served.add_argument("--wait", type=float, default=30)
    check_served.add_argument("--summary-file", type=Path)
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        snapshot(args)
        return 0
    started = time.perf_counter()
    try:
        summary = built(args) if args.command == "built" else served(args)
    except CheckFailed as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"\nFAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    summary += f"; checks took {time.perf_counter() - started:.1f} s"
    print(f"\nAll checks passed: {summary}.")
    if args.summary_file is not None:
        args.summary_file.write_text(summary + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
