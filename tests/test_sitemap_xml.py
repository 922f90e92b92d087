"""The test helper sitemap_xml.py itself: the extension schemas, the driver, the parsers.

Every document here is written by hand from the schemas, not produced by the
app, so that a fault in the app cannot hide a fault in the helper that checks it.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from lxml import etree
from sitemap_xml import (
    DECLARATION,
    IMAGE_NS,
    NEWS_NS,
    SCHEMAS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
    ExtendedUrl,
    OfflineResolver,
    Url,
    namespaces,
    parse_extended_urlset,
    parse_urlset,
)

SITE = "https://www.example.com"
DECLARATIONS = (
    f'xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" xmlns:image="{IMAGE_NS}" '
    f'xmlns:news="{NEWS_NS}" xmlns:video="{VIDEO_NS}"'
)

# One <url> with every sitemap value and all four extensions, then a plain one.
EVERY_EXTENSION = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset {DECLARATIONS}>
<url>
  <loc>{SITE}/en/tea/?sort=new&amp;page=2</loc>
  <lastmod>2024-01-02T03:04:05+00:00</lastmod>
  <changefreq>weekly</changefreq>
  <priority>0.8</priority>
  <xhtml:link rel="alternate" hreflang="en" href="{SITE}/en/tea/"/>
  <xhtml:link rel="alternate" hreflang="de-AT" href="{SITE}/de-at/tee/"/>
  <xhtml:link rel="alternate" hreflang="x-default" href="{SITE}/tea/"/>
  <xhtml:link rel="stylesheet" href="{SITE}/not-an-alternate.css"/>
  <image:image>
    <image:loc>{SITE}/img/pot.jpg</image:loc>
  </image:image>
  <image:image>
    <image:loc>{SITE}/img/cup.png?w=1&amp;h=2</image:loc>
    <image:caption>A cup</image:caption>
  </image:image>
  <news:news>
    <news:publication>
      <news:name>The Example Times</news:name>
      <news:language>zh-cn</news:language>
    </news:publication>
    <news:publication_date>2024-01-02T03:04:05+08:00</news:publication_date>
    <news:title>Tea &amp; biscuits</news:title>
  </news:news>
  <video:video>
    <video:thumbnail_loc>{SITE}/img/brew.jpg</video:thumbnail_loc>
    <video:title>Brewing</video:title>
    <video:description>How to brew a pot of tea.</video:description>
    <video:player_loc allow_embed="yes" autoplay="ap=1">{SITE}/player?v=7</video:player_loc>
    <video:duration>600</video:duration>
    <video:rating>4.5</video:rating>
    <video:tag>tea</video:tag>
    <video:tag>kitchen</video:tag>
    <video:restriction relationship="allow">GB DE</video:restriction>
    <video:uploader info="{SITE}/people/ann/">Ann</video:uploader>
    <video:platform relationship="deny">tv</video:platform>
  </video:video>
  <video:video>
    <video:thumbnail_loc>{SITE}/img/ep1.jpg</video:thumbnail_loc>
    <video:title>Episode 1</video:title>
    <video:description></video:description>
    <video:content_loc>{SITE}/media/ep1.mp4</video:content_loc>
    <video:tvshow>
      <video:show_title>Tea Time</video:show_title>
      <video:video_type>full</video:video_type>
    </video:tvshow>
  </video:video>
</url>
<url>
  <loc>{SITE}/plain/</loc>
</url>
</urlset>
""".encode()

TEA = ExtendedUrl(
    loc=f"{SITE}/en/tea/?sort=new&page=2",
    lastmod="2024-01-02T03:04:05+00:00",
    changefreq="weekly",
    priority="0.8",
    alternates=[
        ("en", f"{SITE}/en/tea/"),
        ("de-AT", f"{SITE}/de-at/tee/"),
        ("x-default", f"{SITE}/tea/"),
    ],
    images=[f"{SITE}/img/pot.jpg", f"{SITE}/img/cup.png?w=1&h=2"],
    news={
        "name": "The Example Times",
        "language": "zh-cn",
        "publication_date": "2024-01-02T03:04:05+08:00",
        "title": "Tea & biscuits",
    },
    videos=[
        {
            "thumbnail_loc": f"{SITE}/img/brew.jpg",
            "title": "Brewing",
            "description": "How to brew a pot of tea.",
            "player_loc": f"{SITE}/player?v=7",
            "player_loc@allow_embed": "yes",
            "player_loc@autoplay": "ap=1",
            "duration": "600",
            "rating": "4.5",
            "tag": ["tea", "kitchen"],
            "restriction": "GB DE",
            "restriction@relationship": "allow",
            "uploader": "Ann",
            "uploader@info": f"{SITE}/people/ann/",
            "platform": "tv",
            "platform@relationship": "deny",
        },
        {
            "thumbnail_loc": f"{SITE}/img/ep1.jpg",
            "title": "Episode 1",
            "description": "",
            "content_loc": f"{SITE}/media/ep1.mp4",
            "tvshow": {"show_title": "Tea Time", "video_type": "full"},
        },
    ],
)

PLAIN = (
    DECLARATION + f'<urlset xmlns="{SITEMAP_NS}"><url><loc>{SITE}/a/</loc></url></urlset>'.encode()
)


def document(url_children: str) -> bytes:
    """A urlset declaring all five namespaces, with one <url> holding these children."""
    return (
        f"{DECLARATION.decode()}<urlset {DECLARATIONS}>"
        f"<url><loc>{SITE}/a/</loc>{url_children}</url></urlset>\n"
    ).encode()


def video(description: str = "d", *optional: str) -> str:
    """A <video:video> with its required children and these optional ones, in order."""
    return (
        f"<video:video><video:thumbnail_loc>{SITE}/t.jpg</video:thumbnail_loc>"
        f"<video:title>T</video:title><video:description>{description}</video:description>"
        f"<video:player_loc>{SITE}/p</video:player_loc>{''.join(optional)}</video:video>"
    )


def news(language: str) -> str:
    return (
        "<news:news><news:publication><news:name>N</news:name>"
        f"<news:language>{language}</news:language></news:publication>"
        "<news:publication_date>2024-01-02</news:publication_date>"
        "<news:title>T</news:title></news:news>"
    )


def test_every_extension_validates_and_parses() -> None:
    assert parse_extended_urlset(EVERY_EXTENSION) == [TEA, ExtendedUrl(f"{SITE}/plain/")]


def test_parse_urlset_reads_the_sitemap_values_of_an_extended_document() -> None:
    assert parse_urlset(EVERY_EXTENSION) == [
        Url(TEA.loc, TEA.lastmod, TEA.changefreq, TEA.priority),
        Url(f"{SITE}/plain/"),
    ]


def test_namespaces_are_the_root_declarations() -> None:
    assert namespaces(EVERY_EXTENSION) == {
        None: SITEMAP_NS,
        "xhtml": XHTML_NS,
        "image": IMAGE_NS,
        "news": NEWS_NS,
        "video": VIDEO_NS,
    }
    assert namespaces(PLAIN) == {None: SITEMAP_NS}


def test_plain_document_has_no_extension_values() -> None:
    assert parse_extended_urlset(PLAIN) == [ExtendedUrl(f"{SITE}/a/")]


def test_extension_element_before_priority_is_rejected() -> None:
    image = f"<image:image><image:loc>{SITE}/i.jpg</image:loc></image:image>"
    assert parse_urlset(document(f"<priority>0.5</priority>{image}"))
    with pytest.raises(etree.DocumentInvalid, match=r"priority': This element is not expected"):
        parse_urlset(document(f"{image}<priority>0.5</priority>"))


# Each pair: a value at the schema's limit (accepted), then one just past it.
LIMITS = {
    "video description of 2,049 characters": (
        video("x" * 2048),
        video("x" * 2049),
        r"description': \[facet 'maxLength'\] The value has a length of '2049'",
    ),
    "video duration of 28,801 seconds": (
        video("d", "<video:duration>28800</video:duration>"),
        video("d", "<video:duration>28801</video:duration>"),
        r"duration': \[facet 'maxInclusive'\] The value '28801'",
    ),
    "video rating of 5.1": (
        video("d", "<video:rating>5.0</video:rating>"),
        video("d", "<video:rating>5.1</video:rating>"),
        r"rating': \[facet 'maxInclusive'\] The value '5.1'",
    ),
    "image without image:loc": (
        f"<image:image><image:loc>{SITE}/i.jpg</image:loc><image:caption>c</image:caption>"
        "</image:image>",
        "<image:image><image:caption>c</image:caption></image:image>",
        r"caption': This element is not expected. Expected is \( \{[^}]+\}loc \)",
    ),
    "news language en-US": (
        news("en"),
        news("en-US"),
        r"language': \[facet 'pattern'\] The value 'en-US' is not accepted",
    ),
    # Our stand-in for the XML namespace schema: xml:lang is a language tag or "".
    "xml:lang that is not a language tag": (
        f'<xhtml:link rel="alternate" hreflang="en" href="{SITE}/" xml:lang=""/>',
        f'<xhtml:link rel="alternate" hreflang="en" href="{SITE}/" xml:lang="en_GB"/>',
        r"attribute '\{http://www.w3.org/XML/1998/namespace\}lang': 'en_GB' is not a valid",
    ),
    # Only the imported namespaces are known: the strict wildcard needs a declaration.
    "element of a namespace the driver does not import": (
        "",
        '<mobile:mobile xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"/>',
        r"mobile': No matching global element declaration available",
    ),
}


@pytest.mark.parametrize(("valid", "invalid", "message"), LIMITS.values(), ids=LIMITS.keys())
def test_value_past_a_schema_limit_is_rejected(valid: str, invalid: str, message: str) -> None:
    assert len(parse_extended_urlset(document(valid))) == 1
    with pytest.raises(etree.DocumentInvalid, match=message):
        parse_extended_urlset(document(invalid))


def test_root_other_than_urlset_is_rejected() -> None:
    # Valid against the driver, which accepts any global element of its schemas.
    content = f'<image:image xmlns:image="{IMAGE_NS}"><image:loc>{SITE}/i.jpg</image:loc>'
    with pytest.raises(AssertionError, match=re.escape(f"{{{IMAGE_NS}}}image")):
        parse_urlset(DECLARATION + f"{content}</image:image>".encode())


def test_schema_import_by_an_unknown_url_fails_instead_of_going_online() -> None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    parser.resolvers.add(OfflineResolver())
    driver = etree.fromstring(
        b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        b'<xs:import namespace="urn:x" schemaLocation="https://www.example.com/x.xsd"/>'
        b"</xs:schema>",
        parser,
    )
    with pytest.raises(etree.XMLSchemaParseError, match=re.escape("https://www.example.com/x.xsd")):
        etree.XMLSchema(driver)


# git blob hashes (`git hash-object FILE`) of the published schemas as copied
# (their provenance: django_sitemapkit/schemas/README.md), so that an edit to a
# copy fails here.
COPIES = {
    "sitemap-image.xsd": "440d2772a04fd29d80b77b3768fe5d32683c2f09",
    "sitemap-news.xsd": "7e3e7eb667016fc57098300269aea69c2fed680e",
    "sitemap-video.xsd": "4bac2178500300aba09435323b88cb8d60101cbc",
    "xhtml1-strict.xsd": "93b80b66788261f4d80766b50e5f781d108bb29e",
}


def git_blob_hash(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@pytest.mark.parametrize("name", COPIES)
def test_copied_schema_is_unchanged(name: str) -> None:
    assert git_blob_hash((SCHEMAS / name).read_bytes()) == COPIES[name]
