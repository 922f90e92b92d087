"""A crawler that reads a live server's sitemap files round after round, while the
kill test (tests/test_build_kill.py) publishes builds and kills others.

``python -m kill_reader <port>`` reads from 127.0.0.1 until its standard input
closes. It prints ``started <time>`` as a round starts and ``ended <time
started> <time ended> <1 if conclusive, else 0>`` as it ends (times of
``time.monotonic()``, which every process shares), and at the end a JSON
summary on a line of its own. A round fetches the index, its ``.gz``,
each file the index names and that file's ``.gz``, then the index again. A
build may be published during a round, as it may during a crawl; a round is
conclusive only if the index fetched last is the same bytes as the first,
each build's index being unlike any other's (tests/kill_data.py). In a
conclusive round every file named must be there (200), be of the index's
build (every lastmod the index's one), and its ``.gz`` must hold exactly its
bytes; anything else is a violation, named in the summary.
"""

from __future__ import annotations

import gzip
import http.client
import json
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit
from xml.etree import ElementTree

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# Reported in full up to this many; the count says how many there were.
SHOWN_VIOLATIONS = 20
SECONDS = 600  # stop even if the test never closes our input


@dataclass
class Response:
    status: int
    body: bytes


class Client:
    """A connection to 127.0.0.1 for each request: on one kept alive, the server's
    small writes wait for the client's delayed acknowledgements (Nagle's
    algorithm), some 40 ms a response."""

    def __init__(self, port: int) -> None:
        self.port = port

    def get(self, path: str) -> Response:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            # identity: the .xml URL answers with the .xml file itself.
            connection.request(
                "GET", path, headers={"Accept-Encoding": "identity", "Connection": "close"}
            )
            response = connection.getresponse()
            return Response(response.status, response.read())
        finally:
            connection.close()


@dataclass
class Round:
    started: float
    ended: float = 0.0
    conclusive: bool = False
    problems: list[str] = field(default_factory=list)


def lastmods_and_locs(body: bytes) -> tuple[set[str], list[str]]:
    root = ElementTree.fromstring(body)
    lastmods = {element.text or "" for element in root.iter(f"{NS}lastmod")}
    return lastmods, [element.text or "" for element in root.iter(f"{NS}loc")]


def same_when_unzipped(gz: Response, xml: Response) -> str | None:
    if gz.status != 200:
        return f"answered {gz.status}"
    try:
        unzipped = gzip.decompress(gz.body)
    except (OSError, EOFError, zlib.error) as exc:
        return f"is not gzip ({exc})"
    return None if unzipped == xml.body else "does not hold the .xml's bytes"


def read_round(client: Client) -> Round:
    result = Round(time.monotonic())
    print(f"started {result.started}", flush=True)
    first = client.get("/sitemap.xml")
    problems = result.problems
    if first.status != 200:
        problems.append(f"/sitemap.xml answered {first.status}")
    else:
        problems += check_index(client, first)
    last = client.get("/sitemap.xml")
    result.ended = time.monotonic()
    result.conclusive = first.status == last.status == 200 and first.body == last.body
    return result


def check_index(client: Client, index: Response) -> list[str]:
    problems = []
    wrong = same_when_unzipped(client.get("/sitemap.xml.gz"), index)
    if wrong:
        problems.append(f"/sitemap.xml.gz {wrong}")
    try:
        generations, locs = lastmods_and_locs(index.body)
    except ElementTree.ParseError as exc:
        return [*problems, f"/sitemap.xml is not XML ({exc})"]
    if len(generations) != 1:
        return [*problems, f"/sitemap.xml has the lastmods {sorted(generations)}, not one"]
    for loc in locs:
        path = urlsplit(loc).path
        page = client.get(path)
        if page.status != 200:
            problems.append(f"{path} answered {page.status}")
            continue
        try:
            lastmods, _ = lastmods_and_locs(page.body)
        except ElementTree.ParseError as exc:
            problems.append(f"{path} is not XML ({exc})")
            continue
        if not lastmods <= generations:
            problems.append(f"{path} has the lastmods {sorted(lastmods)}, not {generations}")
        wrong = same_when_unzipped(client.get(path + ".gz"), page)
        if wrong:
            problems.append(f"{path}.gz {wrong}")
    return problems


def main() -> None:
    client = Client(int(sys.argv[1]))
    stop = threading.Event()

    def wait_for_end_of_input() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_for_end_of_input, daemon=True).start()
    rounds: list[Round] = []
    deadline = time.monotonic() + SECONDS
    while not stop.is_set() and time.monotonic() < deadline:
        done = read_round(client)
        rounds.append(done)
        print(f"ended {done.started} {done.ended} {int(done.conclusive)}", flush=True)
    violations = [
        f"round {number}: {problem}"
        for number, found in enumerate(rounds, 1)
        if found.conclusive
        for problem in found.problems
    ]
    summary: dict[str, Any] = {
        "rounds": len(rounds),
        "conclusive": sum(found.conclusive for found in rounds),
        # What the rounds a publish spanned saw: allowed, and only counted.
        "problems_while_publishing": sum(
            len(found.problems) for found in rounds if not found.conclusive
        ),
        "violations": len(violations),
        "first_violations": violations[:SHOWN_VIOLATIONS],
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
