"""Alternates, images, videos and news, end to end through the views and the build."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from factories import ArticleFactory, bulk_articles
from sitemap_xml import ExtendedUrl, fetch, namespaces, parse_extended_urlset, parse_urlset
from testapp.models import Clip, Photo
from testapp.sitemaps import ArticleSource

from django_sitemapkit import InvalidEntry, News, Related, Restriction, Video
from django_sitemapkit.sources.plan import compile_plan

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
Sources = Callable[..., None]
XHTML = "http://www.w3.org/1999/xhtml"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
LANGUAGES = [("en", "English"), ("fr", "French"), ("pt-br", "Brazilian Portuguese")]
I18N = override_settings(
    ROOT_URLCONF="testapp.urls_i18n", LANGUAGES=LANGUAGES, LANGUAGE_CODE="en", USE_I18N=True
)


def page_urls(client: Client, url: str) -> list[ExtendedUrl]:
    status, body, _ = fetch(client, url)
    assert status == 200, body[:300]
    return parse_extended_urlset(body)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]


# -- sources -----------------------------------------------------------------------------


class PhotoSource(ArticleSource):
    name = "photos"
    images = Related("photos", loc="url")


class GallerySource(ArticleSource):
    name = "gallery"
    images = Related("gallery", loc="url")


class FileSource(ArticleSource):
    name = "files"
    images = Related("photos", loc="file")


class MethodImages(ArticleSource):
    name = "method-images"
    fields = ("title",)

    def images(self, row: dict[str, Any]) -> Iterable[str]:
        return [f"/img/{row['slug']}.png", f"https://cdn.example.net/{row['title']}.jpg"]


class ClipSource(ArticleSource):
    name = "clips"
    videos = Related(
        "clips",
        thumbnail_loc="thumbnail",
        title="title",
        description="description",
        content_loc="file_url",
        duration="seconds",
    )


class I18nSource(ArticleSource):
    name = "i18n"
    i18n = True
    alternates = True


class I18nDefault(I18nSource):
    name = "i18n-default"
    x_default = True
    languages = ["fr", "pt-br"]


class I18nWithoutAlternates(ArticleSource):
    name = "i18n-plain"
    i18n = True


class MappedAlternates(ArticleSource):
    name = "mapped"

    def alternates(self, row: dict[str, Any]) -> Mapping[str, str]:
        return {
            "en": f"/articles/{row['slug']}/",
            "de": f"/de/articles/{row['slug']}/",
            "x-default": "/",
        }


class NewsSource(ArticleSource):
    name = "news"
    news = News(
        name="The Example Times", language="en", title="title", publication_date="updated_at"
    )


def recently(hours: float) -> dt.datetime:
    return timezone.now() - dt.timedelta(hours=hours)


# -- namespaces ---------------------------------------------------------------------------


def test_each_document_declares_only_the_namespaces_its_source_uses(
    client: Client, sources: Sources
) -> None:
    sources(ArticleSource, PhotoSource, ClipSource, MappedAlternates, NewsSource)
    article = ArticleFactory.create(slug="a", updated_at=recently(1))
    Photo.objects.create(article=article, url="/p.png")
    expected = {
        "articles": {None: SITEMAP},
        "photos": {None: SITEMAP, "image": IMAGE},
        "clips": {None: SITEMAP, "video": VIDEO},
        "mapped": {None: SITEMAP, "xhtml": XHTML},
        "news": {None: SITEMAP, "news": NEWS},
    }
    for section, declared in expected.items():
        status, body, _ = fetch(client, f"/sitemap-{section}-1.xml")
        assert status == 200, section
        assert namespaces(body) == declared, section
        parse_extended_urlset(body)  # valid against the schemas


# -- images -------------------------------------------------------------------------------


def test_images_of_a_reverse_foreign_key_in_one_query_per_chunk(
    client: Client, sources: Sources
) -> None:
    sources(PhotoSource)
    articles = bulk_articles(5)
    for number, article in enumerate(articles):
        for position in (2, 1):  # stored out of order: Photo's ordering puts 1 first
            Photo.objects.create(
                article=article, url=f"/img/{number}-{position}.png", position=position
            )
    Photo.objects.create(article=None, url="/img/orphan.png")
    with override_settings(SITEMAPKIT_CHUNK_SIZE=2), CaptureQueriesContext(connection) as queries:
        urls = page_urls(client, "/sitemap-photos-1.xml")
    assert [(url.loc, url.images) for url in urls] == [
        (
            f"{SITE}/articles/{article.slug}/",
            [f"{SITE}/img/{number}-1.png", f"{SITE}/img/{number}-2.png"],
        )
        for number, article in enumerate(articles)
    ]
    photo_queries = [q["sql"] for q in queries.captured_queries if "testapp_photo" in q["sql"]]
    # Five rows in chunks of two: three queries, never one per row.
    assert len(photo_queries) == 3


def test_images_of_a_many_to_many_relation(client: Client, sources: Sources) -> None:
    sources(GallerySource)
    first, second = ArticleFactory.create(slug="a"), ArticleFactory.create(slug="b")
    shared = Photo.objects.create(url="https://cdn.example.net/shared.jpg")
    first.gallery.add(shared, Photo.objects.create(url="/own.jpg", position=-1))
    second.gallery.add(shared)
    urls = page_urls(client, "/sitemap-gallery-1.xml")
    assert [(url.loc, url.images) for url in urls] == [
        (f"{SITE}/articles/a/", [f"{SITE}/own.jpg", "https://cdn.example.net/shared.jpg"]),
        (f"{SITE}/articles/b/", ["https://cdn.example.net/shared.jpg"]),
    ]


@pytest.mark.parametrize(
    ("media_url", "expected"),
    [
        ("/media/", f"{SITE}/media/photos/a%20b.jpg"),
        # Images may live on another host than the pages (a CDN).
        ("https://cdn.example.net/m/", "https://cdn.example.net/m/photos/a%20b.jpg"),
    ],
)
def test_a_file_field_is_read_as_its_storage_url(
    client: Client, sources: Sources, media_url: str, expected: str
) -> None:
    sources(FileSource)
    article = ArticleFactory.create(slug="a")
    Photo.objects.create(article=article, file="photos/a b.jpg")
    Photo.objects.create(article=article, file="")  # no file: left out
    with override_settings(MEDIA_URL=media_url):
        (found,) = page_urls(client, "/sitemap-files-1.xml")
    assert found.images == [expected]


def test_images_from_a_per_row_method(client: Client, sources: Sources) -> None:
    sources(MethodImages)
    ArticleFactory.create(slug="a", title="Été")
    (url,) = page_urls(client, "/sitemap-method-images-1.xml")
    assert url.images == [f"{SITE}/img/a.png", "https://cdn.example.net/%C3%89t%C3%A9.jpg"]


def test_invalid_images_are_left_out_and_logged_and_the_url_kept(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(PhotoSource)
    article = ArticleFactory.create(slug="a")
    for value in ("/ok.png", "javascript:alert(1)", "relative.png", "https://u:p@cdn.example/x"):
        Photo.objects.create(article=article, url=value)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        (url,) = page_urls(client, "/sitemap-photos-1.xml")
    assert url.images == [f"{SITE}/ok.png"]
    assert warnings(caplog) == [
        f"Left out an invalid image (image 'javascript:alert(1)' is not an absolute "
        f"http(s) URL or a path) of pk={article.pk} of source 'photos'.",
        f"Left out an invalid image (image 'relative.png' is not an absolute http(s) URL "
        f"or a path) of pk={article.pk} of source 'photos'.",
        f"Left out an invalid image (image 'https://u:p@cdn.example/x' has credentials or "
        f"a malformed host) of pk={article.pk} of source 'photos'.",
    ]


def test_image_urls_are_written_without_dot_segments(client: Client, sources: Sources) -> None:
    # As a crawler requests them (RFC 3986 section 5.2.4); another host keeps its query.
    sources(PhotoSource)
    article = ArticleFactory.create(slug="a")
    for value in (
        "/media/x/../a.png",
        "/media/%2E%2e/.b.png",
        "https://cdn.example.net/%2e%2e/b/./c.png?v=/../",
    ):
        Photo.objects.create(article=article, url=value)
    (url,) = page_urls(client, "/sitemap-photos-1.xml")
    assert url.images == [
        f"{SITE}/media/a.png",
        f"{SITE}/.b.png",
        "https://cdn.example.net/b/c.png?v=/../",
    ]


def test_at_most_a_thousand_images_per_url(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(PhotoSource)
    article = ArticleFactory.create(slug="a")
    Photo.objects.bulk_create(
        Photo(article=article, url=f"/i/{n}.png", position=n) for n in range(1_001)
    )
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        (url,) = page_urls(client, "/sitemap-photos-1.xml")
    assert url.images == [f"{SITE}/i/{n}.png" for n in range(1_000)]
    assert warnings(caplog) == [
        f"Left out every image after the first 1,000 (the limit per URL) of pk={article.pk} "
        "of source 'photos'."
    ]


@override_settings(SITEMAPKIT_STRICT=True)
def test_strict_mode_raises_on_an_invalid_image(client: Client, sources: Sources) -> None:
    sources(PhotoSource)
    article = ArticleFactory.create(slug="a")
    Photo.objects.create(article=article, url="ftp://example.com/x.png")
    with pytest.raises(InvalidEntry) as info:
        fetch(client, "/sitemap-photos-1.xml")
    assert str(info.value) == (
        f"Skipped pk={article.pk} of source 'photos': an invalid image (image "
        "'ftp://example.com/x.png' is not an absolute http(s) URL or a path)."
    )


# -- videos -------------------------------------------------------------------------------


def test_videos_from_a_relation(client: Client, sources: Sources) -> None:
    sources(ClipSource)
    article = ArticleFactory.create(slug="a")
    Clip.objects.create(
        article=article,
        thumbnail="/t/1.jpg",
        title="Grilling <steaks> & more",
        description="How to grill steaks.",
        file_url="https://video.example.net/1.mp4",
        seconds=600,
    )
    (url,) = page_urls(client, "/sitemap-clips-1.xml")
    assert url.videos == [
        {
            "thumbnail_loc": f"{SITE}/t/1.jpg",
            "title": "Grilling <steaks> & more",
            "description": "How to grill steaks.",
            "content_loc": "https://video.example.net/1.mp4",
            "duration": "600",
        }
    ]


class EveryVideoField(ArticleSource):
    name = "videos"

    def videos(self, row: dict[str, Any]) -> list[Video]:
        return [
            Video(
                thumbnail_loc="/thumbs/a.jpg",
                title="A",
                description="D",
                player_loc="https://player.example.net/?v=1&autoplay=0",
                duration=dt.timedelta(minutes=2),
                expiration_date=dt.datetime(2031, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
                rating=4.25,
                view_count=12_345,
                publication_date=dt.date(2024, 5, 6),
                tags=["steak", "grill"],
                family_friendly=True,
                restriction=Restriction("allow", ["FR", "DE"]),
                requires_subscription=False,
                uploader="Chef & Co",
                uploader_info="/chefs/co/",
                platform=Restriction("deny", ["tv"]),
                live=False,
            )
        ]


def test_every_common_video_field_in_schema_order(client: Client, sources: Sources) -> None:
    sources(EveryVideoField)
    ArticleFactory.create(slug="a")
    (url,) = page_urls(client, "/sitemap-videos-1.xml")
    assert url.videos == [
        {
            "thumbnail_loc": f"{SITE}/thumbs/a.jpg",
            "title": "A",
            "description": "D",
            "player_loc": "https://player.example.net/?v=1&autoplay=0",
            "duration": "120",
            "expiration_date": "2031-01-02T03:04:05+00:00",
            "rating": "4.2",
            "view_count": "12345",
            "publication_date": "2024-05-06",
            "tag": ["steak", "grill"],
            "family_friendly": "yes",
            "restriction": "FR DE",
            "restriction@relationship": "allow",
            "requires_subscription": "no",
            "uploader": "Chef & Co",
            "uploader@info": f"{SITE}/chefs/co/",
            "platform": "tv",
            "platform@relationship": "deny",
            "live": "no",
        }
    ]


BASE_VIDEO: dict[str, Any] = {
    "thumbnail_loc": "/t.jpg",
    "title": "T",
    "description": "D",
    "content_loc": "/v.mp4",
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"description": "x" * 2_049},
            "video description of 2,049 characters is longer than 2,048",
        ),
        ({"title": "x" * 101}, "video title of 101 characters is longer than 100"),
        ({"duration": 0}, "video duration 0 is outside 1 to 28,800 seconds"),
        ({"duration": 28_801}, "video duration 28801 is outside 1 to 28,800 seconds"),
        ({"rating": 5.1}, "video rating 5.1 is outside 0.0 to 5.0"),
        ({"rating": float("nan")}, "video rating nan is outside 0.0 to 5.0"),
        ({"tags": ["t"] * 33}, "video has 33 tags; at most 32 are allowed"),
        ({"content_loc": None}, "video has neither content_loc nor player_loc"),
        (
            {"content_loc": "/articles/a/"},
            f"video content_loc or player_loc is the page's own URL '{SITE}/articles/a/'",
        ),
        ({"view_count": -1}, "video view_count -1 is not a non-negative integer"),
        (
            {"restriction": Restriction("allow", ["fr"])},
            "video restriction Restriction(relationship='allow', values=['fr']) lists an "
            "invalid value",
        ),
        ({"title": "a\x00b"}, "video title 'a\\x00b' holds a character XML cannot carry"),
    ],
)
def test_videos_outside_google_s_limits_are_left_out(
    client: Client,
    sources: Sources,
    caplog: pytest.LogCaptureFixture,
    change: dict[str, Any],
    problem: str,
) -> None:
    class OneVideo(ArticleSource):
        name = "one-video"

        def videos(self, row: dict[str, Any]) -> list[Video]:
            return [Video(**{**BASE_VIDEO, **change}), Video(**BASE_VIDEO)]

    sources(OneVideo)
    article = ArticleFactory.create(slug="a")
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        (url,) = page_urls(client, "/sitemap-one-video-1.xml")
    # The valid video and the URL stay.
    assert [video["content_loc"] for video in url.videos] == [f"{SITE}/v.mp4"]
    assert warnings(caplog) == [
        f"Left out an invalid video ({problem}) of pk={article.pk} of source 'one-video'."
    ]


# -- news ---------------------------------------------------------------------------------


def test_a_news_section_lists_only_the_last_two_days(client: Client, sources: Sources) -> None:
    sources(NewsSource)
    fresh = ArticleFactory.create(slug="fresh", title="Fresh & new", updated_at=recently(3))
    ArticleFactory.create(slug="old", updated_at=recently(49))
    ArticleFactory.create(slug="undated", updated_at=None)
    (url,) = page_urls(client, "/sitemap-news-1.xml")
    assert url.loc == f"{SITE}/articles/fresh/"
    assert fresh.updated_at is not None
    assert url.news == {
        "name": "The Example Times",
        "language": "en",
        "publication_date": fresh.updated_at.astimezone(dt.timezone.utc)
        .replace(microsecond=0, tzinfo=None)
        .isoformat()
        + "+00:00",
        "title": "Fresh & new",
    }
    with override_settings(SITEMAPKIT_NEWS_MAX_AGE=dt.timedelta(days=3)):
        assert len(page_urls(client, "/sitemap-news-1.xml")) == 2


def test_a_news_page_holds_at_most_a_thousand_articles(client: Client, sources: Sources) -> None:
    sources(NewsSource)
    bulk_articles(1_001, updated_at=recently(1))
    assert len(page_urls(client, "/sitemap-news-1.xml")) == 1_000
    assert len(page_urls(client, "/sitemap-news-2.xml")) == 1
    assert compile_plan(NewsSource()).page_size == 1_000


# -- alternates ---------------------------------------------------------------------------


def assert_reciprocal(urls: list[ExtendedUrl]) -> None:
    """Every URL lists itself, and every URL it lists lists the same set."""
    by_loc = {url.loc: set(url.alternates) for url in urls}
    for url in urls:
        links = set(url.alternates)
        assert url.loc in {href for lang, href in links if lang != "x-default"}
        for lang, href in links:
            if lang != "x-default":
                assert by_loc[href] == links


@I18N
def test_i18n_lists_each_row_in_every_language_with_reciprocal_alternates(
    client: Client, sources: Sources
) -> None:
    sources(I18nSource)
    ArticleFactory.create(slug="a")
    ArticleFactory.create(slug="b")
    urls = page_urls(client, "/sitemap-i18n-1.xml")
    expected_links = {
        slug: [(code, f"{SITE}/{code}/articles/{slug}/") for code in ("en", "fr", "pt-br")]
        for slug in ("a", "b")
    }
    assert [(url.loc, url.alternates) for url in urls] == [
        (href, expected_links[slug]) for slug in ("a", "b") for _, href in expected_links[slug]
    ]
    assert_reciprocal(urls)


@I18N
def test_x_default_is_the_url_in_language_code(client: Client, sources: Sources) -> None:
    sources(I18nDefault)
    ArticleFactory.create(slug="a")
    urls = page_urls(client, "/sitemap-i18n-default-1.xml")
    links = [
        ("fr", f"{SITE}/fr/articles/a/"),
        ("pt-br", f"{SITE}/pt-br/articles/a/"),
        ("x-default", f"{SITE}/en/articles/a/"),
    ]
    assert [(url.loc, url.alternates) for url in urls] == [
        (f"{SITE}/fr/articles/a/", links),
        (f"{SITE}/pt-br/articles/a/", links),
    ]


@I18N
def test_i18n_without_alternates_lists_the_languages_only(client: Client, sources: Sources) -> None:
    sources(I18nWithoutAlternates)
    ArticleFactory.create(slug="a")
    status, body, _ = fetch(client, "/sitemap-i18n-plain-1.xml")
    assert status == 200
    assert namespaces(body) == {None: SITEMAP}
    assert [url.loc for url in parse_urlset(body)] == [
        f"{SITE}/{code}/articles/a/" for code in ("en", "fr", "pt-br")
    ]


@I18N
def test_a_page_holds_whole_rows_within_the_url_limit(client: Client, sources: Sources) -> None:
    class Small(I18nSource):
        limit = 7  # seven URLs: two rows of three languages

    sources(Small)
    bulk_articles(5)
    assert compile_plan(Small()).page_size == 2
    counts = [len(page_urls(client, f"/sitemap-i18n-{page}.xml")) for page in (1, 2, 3)]
    assert counts == [6, 6, 3]
    assert fetch(client, "/sitemap-i18n-4.xml")[0] == 404


@I18N
def test_documents_are_written_in_language_code_whatever_the_request_activates(
    client: Client, sources: Sources
) -> None:
    # A crawler's Accept-Language, or any activated language, must not change the URLs.
    ArticleFactory.create(slug="a")
    _, body, headers = fetch(client, "/sitemap-articles-1.xml")
    with translation.override("fr"):
        _, other, other_headers = fetch(client, "/sitemap-articles-1.xml")
    assert other == body
    assert other_headers["ETag"] == headers["ETag"]
    assert [url.loc for url in parse_urlset(body)] == [f"{SITE}/en/articles/a/"]
    with override_settings(LANGUAGE_CODE="fr"):
        _, french, french_headers = fetch(client, "/sitemap-articles-1.xml")
    assert [url.loc for url in parse_urlset(french)] == [f"{SITE}/fr/articles/a/"]
    assert french_headers["ETag"] != headers["ETag"]


def test_alternates_from_a_per_row_mapping(client: Client, sources: Sources) -> None:
    sources(MappedAlternates)
    ArticleFactory.create(slug="a")
    (url,) = page_urls(client, "/sitemap-mapped-1.xml")
    assert url.alternates == [
        ("en", f"{SITE}/articles/a/"),
        ("de", f"{SITE}/de/articles/a/"),
        ("x-default", f"{SITE}/"),
    ]


def test_an_empty_mapping_of_alternates_lists_the_row_without_links(
    client: Client, sources: Sources
) -> None:
    class Untranslated(ArticleSource):
        name = "untranslated"

        def alternates(self, row: dict[str, Any]) -> Mapping[str, str]:
            # A page with no other version (django_sitemapkit.wagtail's untranslated pages).
            return {} if row["slug"] == "alone" else {"en": f"/articles/{row['slug']}/"}

    sources(Untranslated)
    ArticleFactory.create(slug="alone")
    ArticleFactory.create(slug="b")
    urls = page_urls(client, "/sitemap-untranslated-1.xml")
    assert [(url.loc, url.alternates) for url in urls] == [
        (f"{SITE}/articles/alone/", []),
        (f"{SITE}/articles/b/", [("en", f"{SITE}/articles/b/")]),
    ]


@pytest.mark.parametrize(
    ("mapping", "problem"),
    [
        (
            {"en": "/articles/{slug}/", "fr": "https://other.example.com/fr/"},
            "location 'https://other.example.com/fr/' is not on 'https://www.example.com'"
            ", the site's base URL; a sitemap lists URLs of one host only",
        ),
        (
            {"fr": "/fr/articles/{slug}/"},
            "alternates do not list the page itself ('https://www.example.com/articles/a/'); "
            "every version of a page must list itself and all the others",
        ),
        (
            {"en": "/articles/{slug}/", "english": "/en/"},
            "hreflang 'english' is not a language code or 'x-default'",
        ),
        ("/fr/", "alternates '/fr/' is not a mapping of hreflang to location"),
    ],
)
def test_a_row_with_invalid_alternates_is_skipped_and_logged(
    client: Client,
    sources: Sources,
    caplog: pytest.LogCaptureFixture,
    mapping: Any,
    problem: str,
) -> None:
    class Mapped(ArticleSource):
        name = "bad-alternates"

        def alternates(self, row: dict[str, Any]) -> Any:
            if row["slug"] == "ok":
                return {"en": "/articles/ok/"}
            if isinstance(mapping, dict):
                return {lang: href.format(slug=row["slug"]) for lang, href in mapping.items()}
            return mapping

    sources(Mapped)
    bad = ArticleFactory.create(slug="a")
    ArticleFactory.create(slug="ok")
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        urls = page_urls(client, "/sitemap-bad-alternates-1.xml")
    assert [url.loc for url in urls] == [f"{SITE}/articles/ok/"]
    assert warnings(caplog) == [f"Skipped pk={bad.pk} of source 'bad-alternates': {problem}."]


# -- the byte cap and the build -----------------------------------------------------------


@I18N
def test_alternates_count_against_the_byte_cap_with_their_real_size(
    sources: Sources, tmp_path: Path
) -> None:
    sources(I18nSource)
    bulk_articles(40)
    output = tmp_path / "sitemaps"
    with override_settings(SITEMAPKIT_MAX_BYTES=8_000, SITEMAPKIT_OUTPUT_DIR=output):
        call_command("build_sitemaps", verbosity=0)
    pages = sorted(output.glob("sitemap-i18n-*.xml"), key=lambda p: int(p.stem.split("-")[-1]))
    assert len(pages) > 1
    seen: list[ExtendedUrl] = []
    for page in pages:
        body = page.read_bytes()
        assert len(body) <= 8_000
        seen += parse_extended_urlset(body)
    assert len(seen) == 40 * 3
    assert_reciprocal(seen)


@I18N
def test_the_build_writes_what_the_views_serve(
    client: Client, sources: Sources, tmp_path: Path
) -> None:
    sources(I18nDefault, PhotoSource, ClipSource, NewsSource)
    article = ArticleFactory.create(slug="a", updated_at=recently(2))
    Photo.objects.create(article=article, url="/p.png")
    Clip.objects.create(
        article=article, thumbnail="/t.jpg", title="T", description="D", file_url="/v.mp4"
    )
    output = tmp_path / "sitemaps"
    with override_settings(SITEMAPKIT_OUTPUT_DIR=output):
        call_command("build_sitemaps", verbosity=0, validate=True)
    for section in ("i18n-default", "photos", "clips", "news"):
        name = f"sitemap-{section}-1.xml"
        served = fetch(client, f"/{name}")[1]
        assert (output / name).read_bytes() == served, section
        assert parse_extended_urlset(served)


# -- real consumers -----------------------------------------------------------------------


class Everything(ArticleSource):
    name = "everything"
    i18n = True
    alternates = True
    x_default = True
    languages = ["fr", "pt-br"]
    images = Related("photos", loc="url")
    videos = ClipSource.videos
    news = NewsSource.news


@I18N
def test_ultimate_sitemap_parser_and_scrapy_read_every_extension(
    client: Client, sources: Sources
) -> None:
    from scrapy.utils.sitemap import Sitemap
    from usp.tree import sitemap_from_str

    sources(Everything)
    article = ArticleFactory.create(slug="a&b", title="Big <news>", updated_at=recently(1))
    Photo.objects.create(article=article, url="https://cdn.example.net/a.jpg?w=1&h=2")
    Clip.objects.create(
        article=article, thumbnail="/t.jpg", title="T", description="D", file_url="/v.mp4"
    )
    status, body, _ = fetch(client, "/sitemap-everything-1.xml")
    assert status == 200
    expected = parse_extended_urlset(body)  # schema-valid, with all four extensions
    assert namespaces(body) == {
        None: SITEMAP,
        "xhtml": XHTML,
        "image": IMAGE,
        "video": VIDEO,
        "news": NEWS,
    }
    assert [url.loc for url in expected] == [
        f"{SITE}/fr/articles/a&b/",
        f"{SITE}/pt-br/articles/a&b/",
    ]

    pages = list(sitemap_from_str(body.decode()).all_pages())
    assert [page.url for page in pages] == [url.loc for url in expected]
    for page, url in zip(pages, expected, strict=True):
        assert page.alternates == url.alternates
        assert [image.loc for image in page.images or []] == url.images
        assert page.news_story is not None
        assert page.news_story.title == "Big <news>"
        assert page.news_story.publication_name == "The Example Times"
        assert page.news_story.publication_language == "en"

    scraped = list(Sitemap(body))
    assert [item["loc"] for item in scraped] == [url.loc for url in expected]
    assert [item["alternate"] for item in scraped] == [
        [href for _, href in url.alternates] for url in expected
    ]


class I18nBadPriority(I18nDefault):
    def priority(self, row: dict[str, Any]) -> object:  # type: ignore[override]
        return 2


@I18N
def test_an_invalid_priority_is_left_out_of_every_language_s_url_and_told_once(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(I18nBadPriority)
    article = ArticleFactory.create(slug="a", updated_at=None)
    links = [
        ("fr", f"{SITE}/fr/articles/a/"),
        ("pt-br", f"{SITE}/pt-br/articles/a/"),
        ("x-default", f"{SITE}/en/articles/a/"),
    ]
    assert page_urls(client, "/sitemap-i18n-default-1.xml") == [
        ExtendedUrl(f"{SITE}/fr/articles/a/", None, "weekly", alternates=links),
        ExtendedUrl(f"{SITE}/pt-br/articles/a/", None, "weekly", alternates=links),
    ]
    assert warnings(caplog) == [
        f"Left out the priority of pk={article.pk} of source 'i18n-default': 2 is outside 0.0 "
        "to 1.0."
    ]
