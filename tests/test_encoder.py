from __future__ import annotations

from collections.abc import Callable, Iterator

from sitemap_xml import Url, parse_index, parse_urlset

from django_sitemapkit.conf import MAX_BYTES
from django_sitemapkit.encoding.encoder import (
    CHUNK_BYTES,
    SITEMAPINDEX,
    URLSET,
    Encoder,
    Entry,
    Lines,
    entry_lines,
    escape,
    sitemap_element,
    url_element,
)

BASE = "https://www.example.com/"
# Entries per run of lines, as a chunk of rows gives them.
RUN = 100


def runs(entries: list[Entry], element: Callable[[Entry], str] = url_element) -> Iterator[Lines]:
    for start in range(0, len(entries), RUN):
        yield entry_lines(entries[start : start + RUN], element)


def encode(entries: list[Entry], **limits: int) -> tuple[bytes, Encoder]:
    encoder = Encoder(URLSET, **limits)
    return b"".join(encoder.stream(runs(entries))), encoder


def test_document_with_every_value() -> None:
    entry = Entry(BASE + "a/", "2024-01-02", "daily", "0.8")
    content, encoder = encode([entry, Entry(BASE + "b/")])
    assert parse_urlset(content) == [
        Url(BASE + "a/", "2024-01-02", "daily", "0.8"),
        Url(BASE + "b/"),
    ]
    assert (encoder.count, encoder.size, encoder.cut) == (2, len(content), False)


def test_exact_bytes_of_a_small_document() -> None:
    content, _ = encode([Entry(BASE + "?a=1&b='2'", "2024-01-02", None, "0.5")])
    assert content == (
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        b"<url><loc>https://www.example.com/?a=1&amp;b=&apos;2&apos;</loc>"
        b"<lastmod>2024-01-02</lastmod><priority>0.5</priority></url>\n"
        b"</urlset>\n"
    )


def test_escapes_each_special_character_exactly_once() -> None:
    assert escape("&amp; < > ' \"") == "&amp;amp; &lt; &gt; &apos; &quot;"
    loc = BASE + "x?q=<&>'\"&amp;"
    content, _ = encode([Entry(loc)])
    assert parse_urlset(content) == [Url(loc)]


def test_index_document() -> None:
    encoder = Encoder(SITEMAPINDEX)
    entries = [Entry(BASE + "sitemap-a-1.xml", "2024-01-02"), Entry(BASE + "s-b-1.xml")]
    content = b"".join(encoder.stream(runs(entries, sitemap_element)))
    assert parse_index(content) == [
        (BASE + "sitemap-a-1.xml", "2024-01-02"),
        (BASE + "s-b-1.xml", None),
    ]


def test_the_index_escapes_its_values_whoever_made_them() -> None:
    # The index is written from a manifest read back and from workers'
    # results: its text is escaped where it is written, not by its callers.
    markup = "</lastmod></sitemap><sitemap><loc>https://evil.example/x</loc><lastmod>1"
    line = sitemap_element(Entry(BASE + "a&b", markup))
    assert line == (
        f"<sitemap><loc>{BASE}a&amp;b</loc><lastmod>&lt;/lastmod&gt;&lt;/sitemap&gt;&lt;"
        "sitemap&gt;&lt;loc&gt;https://evil.example/x&lt;/loc&gt;&lt;lastmod&gt;1</lastmod>"
        "</sitemap>\n"
    )


def test_chunks_are_large_and_bounded() -> None:
    entries = [Entry(f"{BASE}{n:06d}/") for n in range(20_000)]
    chunks = list(Encoder(URLSET).stream(runs(entries)))
    assert len(chunks) > 5
    # A chunk is handed out once it holds CHUNK_BYTES: at most one run more.
    run_bytes = RUN * len(url_element(entries[0]))
    assert all(CHUNK_BYTES <= len(chunk) < CHUNK_BYTES + run_bytes for chunk in chunks[:-1])
    assert len(parse_urlset(b"".join(chunks))) == 20_000


def test_stops_at_max_urls() -> None:
    content, encoder = encode([Entry(f"{BASE}{n}") for n in range(10)], max_urls=3)
    assert [url.loc for url in parse_urlset(content)] == [BASE + "0", BASE + "1", BASE + "2"]
    assert (encoder.count, encoder.cut) == (3, True)


def test_never_passes_50_mib_with_2000_character_urls() -> None:
    # 2,000-character URLs, near the protocol's longest: about 25,000 of them
    # fill 50 MiB, well under the 50,000-URL cap.
    locs = [f"{BASE}{n:08d}/" + "x" * 1_967 for n in range(30_000)]
    assert len(locs[0]) == 2_000
    content, encoder = encode([Entry(loc, "2024-01-02") for loc in locs])
    assert encoder.cut is True
    assert len(content) == encoder.size <= MAX_BYTES
    line = len(f"<url><loc>{locs[0]}</loc><lastmod>2024-01-02</lastmod></url>\n")
    frame = len(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n</urlset>\n'
    )
    # As many entries as fit, and not one fewer.
    assert encoder.count == (MAX_BYTES - frame) // line
    assert 25_000 < encoder.count < 26_000
    assert MAX_BYTES - len(content) < line
    urls = parse_urlset(content)
    assert [url.loc for url in urls] == locs[: encoder.count]


def test_an_error_in_the_entries_ends_without_a_closing_tag() -> None:
    def failing() -> Iterator[Lines]:
        yield entry_lines([Entry(BASE + "a")], url_element)
        raise RuntimeError("database went away")

    received = []
    stream = Encoder(URLSET).stream(failing())
    try:
        for chunk in stream:
            received.append(chunk)
    except RuntimeError:
        pass
    assert b"</urlset>" not in b"".join(received)


def test_a_cut_keeps_the_entry_that_did_not_fit() -> None:
    entries = [Entry(f"{BASE}{n}/") for n in range(3)]
    _, encoder = encode(entries, max_urls=2)
    overflow = ([url_element(entries[2])], [None])
    assert (encoder.count, encoder.cut, encoder.overflow) == (2, True, overflow)
    _, whole = encode(entries, max_urls=3)
    assert (whole.count, whole.cut, whole.overflow) == (3, False, None)


def test_newest_is_the_latest_lastmod_written() -> None:
    entries = [
        Entry(BASE + "a/", "2024-03-01T10:00:00+00:00"),
        Entry(BASE + "b/", "2024-03-02"),
        Entry(BASE + "c/"),
        Entry(BASE + "d/", "2024-03-01T23:59:59+00:00"),
        Entry(BASE + "e/", "2024-03-02T00:00:01+00:00"),
    ]
    assert encode(entries[:4])[1].newest == "2024-03-02"
    assert encode(entries)[1].newest == "2024-03-02T00:00:01+00:00"
    # An entry left out by a cut does not count.
    assert encode(entries, max_urls=4)[1].newest == "2024-03-02"
    assert encode([Entry(BASE)])[1].newest is None
