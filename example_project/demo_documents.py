"""The example's sitemap documents over HTTP, as demo_check.py reads them: the index
and each page it lists fetched, validated against the schemas and shown; their
answers to conditional GETs; and their bytes against the files build_sitemaps
wrote."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from demo_counts import Listing, section_of
from demo_http import NAMESPACE, NS, CheckFailed, Response, fetch

SHOWN_HEADERS = ("Content-Type", "Last-Modified", "ETag")
FIRST_ENTRIES = 3


@dataclass
class Page(Listing):
    """A page listed by the index, once fetched over HTTP and validated."""

    response: Response | None = None

    @property
    def answer(self) -> Response:
        assert self.response is not None
        return self.response


def parse_valid(response: Response, schema: etree.XMLSchema, schema_name: str) -> etree._Element:
    """The document's root element, once it is well-formed and valid against the schema."""
    if response.status != 200:
        raise CheckFailed(
            f"GET {response.url} answered {response.status}, expected 200:\n"
            f"{response.body[:2000].decode(errors='replace')}"
        )
    content_type = response.header("Content-Type") or ""
    if not content_type.startswith("application/xml"):
        raise CheckFailed(f"GET {response.url} has Content-Type {content_type!r}, not XML")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(response.body, parser)
    except etree.XMLSyntaxError as exc:
        raise CheckFailed(f"{response.url} is not well-formed XML: {exc}") from exc
    if not schema.validate(root):
        errors = "\n".join(f"  line {e.line}: {e.message}" for e in list(schema.error_log)[:10])
        raise CheckFailed(f"{response.url} is not valid against {schema_name}:\n{errors}")
    return root


def print_response(response: Response, note: str = "") -> None:
    path = response.url.split("://", 1)[-1].partition("/")[2]
    print(f"\n== GET /{path}  ({response.describe()}){note}")
    for name in SHOWN_HEADERS:
        print(f"   {name}: {response.header(name)}")


def without_namespace(element: etree._Element) -> str:
    text: str = etree.tostring(element, encoding="unicode", with_tail=False)
    return text.replace(f' xmlns="{NAMESPACE}"', "")


def check_index(base_url: str, schema: etree.XMLSchema) -> tuple[Response, list[str]]:
    response = fetch(base_url + "/sitemap.xml")
    root = parse_valid(response, schema, "siteindex.xsd")
    print_response(response, "  valid against siteindex.xsd")
    if not response.header("ETag") or not response.header("Last-Modified"):
        raise CheckFailed("the index has no ETag or no Last-Modified header")
    print()
    print(response.body.decode().rstrip())
    locs = [str(loc).strip() for loc in root.xpath("sm:sitemap/sm:loc/text()", namespaces=NS)]
    if not locs:
        raise CheckFailed("the index lists no sitemap page")
    for loc in locs:
        if not loc.startswith(base_url + "/"):
            raise CheckFailed(f"the index lists {loc!r}, which is not on {base_url}")
    return response, locs


def check_page(loc: str, base_url: str, schema: etree.XMLSchema, show_entries: bool) -> Page:
    response = fetch(loc)
    root = parse_valid(response, schema, "sitemap.xsd")
    urls = root.findall("sm:url", NS)
    name = loc.rsplit("/", 1)[-1]
    section = section_of(name)
    print_response(response, f"  {len(urls):,} URLs, valid against sitemap.xsd")
    locs = [str(url.findtext("sm:loc", namespaces=NS)).strip() for url in urls]
    outside = [url for url in locs if not url.startswith(base_url + "/")]
    if outside:
        raise CheckFailed(f"{name} lists {len(outside):,} URLs not on {base_url}: {outside[:3]}")
    if show_entries:
        print(f"   first {FIRST_ENTRIES} <url> entries:")
        for url in urls[:FIRST_ENTRIES]:
            print(f"   {without_namespace(url)}")
    return Page(name, section, len(urls), locs, response)


def check_conditional(index: Response, page: Page) -> None:
    print("\n== Conditional GET")
    etag = page.answer.header("ETag")
    last_modified = page.answer.header("Last-Modified")
    if not etag or not last_modified:
        raise CheckFailed(f"{page.name} has no ETag or no Last-Modified header")
    cases = [
        (page.answer.url, {"If-None-Match": etag}, 304),
        (page.answer.url, {"If-Modified-Since": last_modified}, 304),
        (index.url, {"If-None-Match": index.header("ETag") or ""}, 304),
        (index.url, {"If-None-Match": 'W/"not-the-current-etag"'}, 200),
    ]
    for url, headers, expected in cases:
        response = fetch(url, headers)
        name = url.rsplit("/", 1)[-1]
        [(header, value)] = headers.items()
        print(f"   {name} with {header}: {value}\n      -> {response.describe()}")
        if response.status != expected:
            raise CheckFailed(f"expected {expected}, got {response.status}")
        if expected == 304 and response.body:
            raise CheckFailed("a 304 answer carried a body")


def compare_with_files(responses: list[Response], directory: Path) -> None:
    """Each document the database views served is byte for byte the built file."""
    print(f"\n== Served from the database vs. the files build_sitemaps wrote to {directory}")
    for response in responses:
        name = response.url.rsplit("/", 1)[-1]
        path = directory / name
        if not path.is_file():
            raise CheckFailed(f"{path} does not exist: run manage.py build_sitemaps first")
        built = path.read_bytes()
        verdict = "same bytes" if built == response.body else "DIFFERENT"
        print(
            f"   {name:<32} {len(response.body):>12,} bytes served, {len(built):>12,} in the file: "
            f"{verdict}"
        )
        if built != response.body:
            raise CheckFailed(f"GET /{name} and {path} differ")
