"""run.sh's helper for what bash does badly; standard library only.

helper.py paths INDEX_FILE            the index's path, then the path of every <loc> in it
helper.py sample PID OUT_FILE         sample the RSS and CPU of PID and its descendants
                                      until SIGTERM (or PID exits), then write the figures
helper.py record --out RESULTS ...    one run's figures and checks (wrk, samples, log)
helper.py table RESULTS               the summary table of every recorded run
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

from process_tree import sample
from run_records import record, table

INDEX_PATH = "/sitemap.xml"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def paths(args: argparse.Namespace) -> None:
    # Only the path of each <loc>: the documents' host is SITEMAPKIT_BASE_URL,
    # not the port this run's server listens on.
    root = ET.parse(args.index_file).getroot()
    print(INDEX_PATH)
    for loc in root.iter(f"{NS}loc"):
        print(urlsplit((loc.text or "").strip()).path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(required=True)

    command = commands.add_parser("paths")
    command.add_argument("index_file")
    command.set_defaults(run=paths)

    command = commands.add_parser("sample")
    command.add_argument("pid", type=int)
    command.add_argument("out_file")
    command.add_argument("--interval", type=float, default=0.2)
    command.set_defaults(run=sample)

    command = commands.add_parser("record")
    names = ("out", "server", "mode", "wrk-output", "sample-file", "log", "log-marks")
    for name in names:
        command.add_argument(f"--{name}", required=True)
    for name in ("connections", "workers", "warmup-errors", "expected-body-bytes"):
        command.add_argument(f"--{name}", type=int, required=True)
    for name in ("ttfb", "total", "wrk-cpu"):
        command.add_argument(f"--{name}", type=float, required=True)
    command.set_defaults(run=record)

    command = commands.add_parser("table")
    command.add_argument("results")
    command.set_defaults(run=table)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
