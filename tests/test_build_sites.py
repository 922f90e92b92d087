"""``build_sitemaps`` with several sites: a directory (or storage prefix) per site, each
site's own URLs, failures kept to their site, and each host served its own files."""

from __future__ import annotations

import fcntl
import gzip
import io
import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from built_sets import (
    builds,
    current_build,
    leftovers,
    lock_file,
    snapshot,
    visible,
    without_times,
)
from django.contrib.sites.models import Site
from django.core.files.storage import InMemoryStorage, Storage, storages
from django.core.management import CommandError, call_command
from django.db import DatabaseError
from django.db.models import QuerySet
from django.test import Client, override_settings
from factories import CategoryFactory, bulk_articles
from processes import manage
from sitemap_xml import fetch, parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import SitemapSite, StaticSource
from django_sitemapkit.build.destinations import StorageDestination
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
ROLES = ("www", "shop", "de")
BASE_URLS = {
    "www": "https://www.example.com",
    "shop": "https://shop.example.com",
    "de": "https://example.de:8443",
}
HOSTS = {"www": "www.example.com", "shop": "shop.example.com", "de": "example.de:8443"}


@dataclass(frozen=True)
class Sites:
    """The three sites as one variant names them: ``name["shop"]`` is the directory."""

    name: dict[str, str]

    def directory(self, root: Path, role: str) -> Path:
        return root / self.name[role]


@pytest.fixture(params=["setting", "framework"])
def several(request: pytest.FixtureRequest) -> Iterator[Sites]:
    """Three sites from ``SITEMAPKIT_SITES``, or from three ``Site`` rows."""
    if request.param == "setting":
        value: object = BASE_URLS
        names = {role: role for role in ROLES}
    else:
        Site.objects.update_or_create(pk=1, defaults={"domain": HOSTS["www"]})
        for role in ("shop", "de"):
            Site.objects.create(domain=HOSTS[role], name=role)
        value = "django.contrib.sites"
        names = dict(HOSTS)
    allowed = ["www.example.com", "shop.example.com", "example.de", "other.example.com"]
    with override_settings(SITEMAPKIT_SITES=value, ALLOWED_HOSTS=allowed):
        yield Sites(names)
    Site.objects.clear_cache()


class SiteArticles(ArticleSource):
    """Each site lists the articles of the category named after it."""

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        rows: QuerySet[Any] = self.get_queryset().filter(category__slug=site.name)
        return rows


class Offers(StaticSource):
    """Listed on the shop only (``sites`` is set per variant: see ``only_on``)."""

    name = "offers"
    urls = ["about"]


def only_on(source: type[Any], *names: str) -> type[Any]:
    return type(source.__name__, (source,), {"sites": list(names)})


class FailsOnShop(SiteArticles):
    """The shop's rows cannot be read; the other sites' can."""

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        if site.base_url == BASE_URLS["shop"]:
            raise DatabaseError("the shop's replica is down")
        return super().get_site_queryset(site)


def articles_per_site(sites: Sites, count: int) -> dict[str, list[Article]]:
    return {
        role: bulk_articles(count, category=CategoryFactory.create(slug=sites.name[role]))
        for role in ROLES
    }


def run(*args: str, **options: Any) -> tuple[str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command("build_sitemaps", *args, stdout=stdout, stderr=stderr, **options)
    return stdout.getvalue(), stderr.getvalue()


def failing_run(**options: Any) -> tuple[str, str, int, str]:
    """(stdout, stderr, exit code, message) of a build that fails."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("build_sitemaps", stdout=stdout, stderr=stderr, **options)
    return stdout.getvalue(), stderr.getvalue(), raised.value.returncode, str(raised.value)


def article_locs(base: str, articles: list[Article]) -> list[str]:
    return [f"{base}/articles/{article.slug}/" for article in articles]


def locs(content: bytes) -> list[str]:
    return [url.loc for url in parse_urlset(content)]


def index_locs(content: bytes) -> list[str]:
    return [loc for loc, _ in parse_index(content)]


def with_gz(*names: str) -> list[str]:
    return sorted([*names, *(name + ".gz" for name in names)])


# -- a directory per site ------------------------------------------------------------


def test_each_site_directory_holds_only_its_own_urls(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles, PagesSource, only_on(Offers, several.name["shop"]))
    articles = articles_per_site(several, 3)
    stdout, stderr = run(output=str(tmp_path))
    assert stderr == ""
    assert visible(tmp_path) == sorted(several.name.values())
    for role in ROLES:
        base, directory = BASE_URLS[role], several.directory(tmp_path, role)
        files = snapshot(directory)
        pages = ["sitemap-articles-1.xml", "sitemap-pages-1.xml"]
        if role == "shop":
            pages.append("sitemap-offers-1.xml")
        assert sorted(files) == [*with_gz("sitemap.xml", *pages), MANIFEST_FILENAME], role
        assert index_locs(files["sitemap.xml"]) == [f"{base}/{name}" for name in pages]
        assert locs(files["sitemap-articles-1.xml"]) == article_locs(base, articles[role])
        assert locs(files["sitemap-pages-1.xml"]) == [f"{base}/", f"{base}/about/"]
        if role == "shop":
            assert locs(files["sitemap-offers-1.xml"]) == [f"{base}/about/"]
        for name in ["sitemap.xml", *pages]:
            assert gzip.decompress(files[name + ".gz"]) == files[name]
        assert sorted(os.listdir(builds(directory))) == [".lock", current_build(directory)]
    # A header per site, then its part as a project of one site prints it.
    assert [line for line in stdout.splitlines() if line.startswith(("Site ", "Published "))] == [
        line
        for role in ROLES
        for files in [8 if role == "shop" else 6]
        for line in (
            f"Site {several.name[role]!r} on {BASE_URLS[role]}:",
            f"Published to {several.directory(tmp_path, role)} ({files} files and the "
            f"manifest): {files} written, 0 unchanged, 0 removed.",
        )
    ]


def test_a_site_that_fails_keeps_its_files_and_the_others_are_published(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles)
    articles_per_site(several, 2)
    run(output=str(tmp_path), verbosity=0)
    before = {role: snapshot(several.directory(tmp_path, role)) for role in ROLES}
    added = articles_per_site(several, 1)
    sources(FailsOnShop)
    stdout, stderr, code, message = failing_run(output=str(tmp_path))
    shop = several.directory(tmp_path, "shop")
    assert (stderr, code, message) == (
        "",
        1,
        "The sitemaps of 1 of 3 sites failed (the other 2 were built):\n"
        f"- {several.name['shop']!r} (https://shop.example.com): DatabaseError: the shop's "
        f"replica is down Nothing was published: the files in {shop} are as they were.",
    )
    assert (
        f"Site {several.name['shop']!r} on https://shop.example.com:\n"
        "Failed: see the error at the end. Its files are as they were.\n"
        f"Site {several.name['de']!r} on https://example.de:8443:\n"
    ) in stdout
    # Byte for byte, and no staged file left behind.
    assert snapshot(shop) == before["shop"]
    assert leftovers(shop) == []
    for role in ("www", "de"):
        files = snapshot(several.directory(tmp_path, role))
        assert files != before[role]
        new = article_locs(BASE_URLS[role], added[role])
        assert locs(files["sitemap-articles-1.xml"])[-1:] == new


class PairedSiteArticles(SiteArticles):
    limit = 2


def test_a_site_whose_manifest_has_the_wrong_types_is_rendered_afresh(
    several: Sites, sources: Sources, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The first articles' shard is kept as recorded, its URL count a string; a
    # new article changes the second, so the site is published. Such a
    # manifest once failed the build after its publish, which the command then
    # called "as they were".
    sources(PairedSiteArticles)
    articles_per_site(several, 3)
    run(output=str(tmp_path), verbosity=0)
    shop = several.directory(tmp_path, "shop")
    manifest = json.loads((shop / MANIFEST_FILENAME).read_bytes())
    manifest["shards"][0]["files"][0]["urls"] = "2"
    (shop / MANIFEST_FILENAME).write_text(json.dumps(manifest))
    added = articles_per_site(several, 1)
    stdout, stderr = run(output=str(tmp_path))
    assert (stderr, caplog.messages) == (
        "",
        [
            f"{MANIFEST_FILENAME} in {shop} cannot be read (Invalid: shards[0].files[0].urls "
            "is '2', not a whole number from 1 to 50,000): every file is rendered afresh, and "
            "the build writes a new one."
        ],
    )
    assert "Failed" not in stdout
    files = snapshot(shop)
    new = article_locs(BASE_URLS["shop"], added["shop"])
    assert locs(files["sitemap-articles-2.xml"])[-1:] == new
    assert json.loads(files[MANIFEST_FILENAME])["shards"][0]["files"][0]["urls"] == 2


class InterruptedOnShop(SiteArticles):
    """Ctrl-C arrives while the shop is built."""

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        if site.base_url == BASE_URLS["shop"]:
            raise KeyboardInterrupt
        return super().get_site_queryset(site)


def test_ctrl_c_stops_at_once_naming_what_was_published(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(InterruptedOnShop)
    articles_per_site(several, 1)
    _, stderr, code, message = failing_run(output=str(tmp_path), verbosity=0)
    shop = several.directory(tmp_path, "shop")
    assert (stderr, code, message) == (
        "",
        130,
        f"Interrupted. Nothing was published: the files in {shop} are as they were. "
        f"Published before: {several.name['www']!r}. Not built: {several.name['de']!r}.",
    )
    assert visible(tmp_path) == [several.name["www"]]
    assert os.listdir(builds(shop)) == [".lock"]


def test_a_site_whose_lock_is_held_fails_alone(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles)
    articles_per_site(several, 1)
    www = several.directory(tmp_path, "www")
    builds(www).mkdir()
    with open(lock_file(www), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        _, _, code, message = failing_run(output=str(tmp_path), verbosity=0)
    assert (code, message) == (
        1,
        "The sitemaps of 1 of 3 sites failed (the other 2 were built):\n"
        f"- {several.name['www']!r} (https://www.example.com): Another build_sitemaps is "
        f"writing to {www}; wait for it to finish, then run this one again.",
    )
    assert not www.exists()
    assert os.listdir(builds(www)) == [".lock"]
    for role in ("shop", "de"):
        assert sorted(snapshot(several.directory(tmp_path, role))) == [
            *with_gz("sitemap.xml", "sitemap-articles-1.xml"),
            MANIFEST_FILENAME,
        ]


def test_a_site_row_that_cannot_be_a_site_is_an_error_after_the_others(
    sources: Sources, tmp_path: Path
) -> None:
    sources(PagesSource)
    Site.objects.update_or_create(pk=1, defaults={"domain": HOSTS["www"]})
    bad = Site.objects.create(domain="shop.example.org/blog", name="shop")
    with override_settings(SITEMAPKIT_SITES="django.contrib.sites"):
        stdout, stderr, code, message = failing_run(output=str(tmp_path))
        # A run that names its sites is not concerned with the others.
        assert run(output=str(tmp_path / "one"), site=["www.example.com"], verbosity=0) == (
            "",
            "",
        )
    assert (stderr, code, message) == (
        "",
        1,
        "The sitemaps of 1 of 2 sites failed (the other one was built):\n"
        f"- The domain of Site {bad.pk} (SITEMAPKIT_SITES = 'django.contrib.sites'), "
        "'shop.example.org/blog', carries a path: the sitemap cannot be built "
        f"on https:// and that domain. Set the domain of Site {bad.pk} to the host the site "
        "is served on, alone or with its port, such as 'www.example.com' or "
        "'www.example.com:8443' (a non-ASCII host in its xn-- form), or delete the Site if it "
        "has no sitemap.",
    )
    assert stdout.startswith("Site 'www.example.com' on https://www.example.com:\n")
    assert visible(tmp_path) == ["one", "www.example.com"]
    assert visible(tmp_path / "one") == ["www.example.com"]
    assert index_locs((tmp_path / "www.example.com" / "sitemap.xml").read_bytes()) == [
        "https://www.example.com/sitemap-pages-1.xml"
    ]


# -- choosing sites and sections --------------------------------------------------------


def test_site_builds_the_sites_it_names_only(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles)
    articles = articles_per_site(several, 2)
    shop, de = several.name["shop"], several.name["de"]
    stdout, _ = run(output=str(tmp_path), site=[de, shop, de])
    # In the order named, each once.
    assert [line for line in stdout.splitlines() if line.startswith("Site ")] == [
        f"Site {de!r} on https://example.de:8443:",
        f"Site {shop!r} on https://shop.example.com:",
    ]
    assert visible(tmp_path) == sorted([shop, de])
    shop_files = snapshot(tmp_path / shop)
    assert locs(shop_files["sitemap-articles-1.xml"]) == article_locs(
        BASE_URLS["shop"], articles["shop"]
    )


def test_an_unknown_site_is_an_error_naming_the_sites(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles)
    for dry_run in (False, True):
        stdout, stderr, code, message = failing_run(
            output=str(tmp_path), site=[several.name["www"], "nope"], dry_run=dry_run
        )
        listed = ", ".join(repr(several.name[role]) for role in ROLES)
        assert (stdout, stderr, code, message) == (
            "",
            "",
            1,
            f"No site named 'nope'; the sites are {listed} (SITEMAPKIT_SITES).",
        )
    assert os.listdir(tmp_path) == []


def test_one_site_is_default_and_keeps_its_files_at_the_root(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(3)
    run(output=str(tmp_path / "plain"), verbosity=0)
    stdout, stderr = run(output=str(tmp_path / "named"), site=["default"])
    assert snapshot(tmp_path / "named", built=False) == snapshot(tmp_path / "plain", built=False)
    assert not stdout.startswith("Site ")
    assert stderr == ""
    assert failing_run(output=str(tmp_path / "www"), site=["www"]) == (
        "",
        "",
        1,
        "No site named 'www': SITEMAPKIT_SITES is not set, so the project's only site is "
        "'default'.",
    )
    assert not (tmp_path / "www").exists()


def test_section_applies_within_each_site(several: Sites, sources: Sources, tmp_path: Path) -> None:
    sources(SiteArticles, only_on(Offers, several.name["shop"]))
    articles_per_site(several, 1)
    run(output=str(tmp_path), verbosity=0)
    before = {role: snapshot(several.directory(tmp_path, role)) for role in ROLES}
    added = articles_per_site(several, 1)
    stdout, stderr = run(output=str(tmp_path), section=["offers"])
    assert stderr == ""
    nothing = "None of the sections --section names is listed on this site: nothing to do."
    assert stdout.splitlines()[:2] == [
        f"Site {several.name['www']!r} on {BASE_URLS['www']}:",
        nothing,
    ]
    assert stdout.splitlines()[-2:] == [
        f"Site {several.name['de']!r} on {BASE_URLS['de']}:",
        nothing,
    ]
    assert {role: snapshot(several.directory(tmp_path, role)) for role in ROLES} == before
    # Articles on the sites that list them; the shop's offers are kept.
    run(output=str(tmp_path), section=["articles"], verbosity=0)
    shop = snapshot(several.directory(tmp_path, "shop"))
    assert shop["sitemap-offers-1.xml"] == before["shop"]["sitemap-offers-1.xml"]
    assert index_locs(shop["sitemap.xml"]) == [
        "https://shop.example.com/sitemap-articles-1.xml",
        "https://shop.example.com/sitemap-offers-1.xml",
    ]
    for role in ROLES:
        files = snapshot(several.directory(tmp_path, role))
        assert locs(files["sitemap-articles-1.xml"])[-1:] == article_locs(
            BASE_URLS[role], added[role]
        )
    assert failing_run(output=str(tmp_path), section=["articles", "nope"]) == (
        "",
        "",
        1,
        "No sitemap section named 'nope'; the sections are 'articles', 'offers'.",
    )


def test_dry_run_lists_each_site_and_writes_nothing(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(only_on(SiteArticles, several.name["www"], several.name["shop"]))
    bulk_articles(3, category=CategoryFactory.create(slug=several.name["www"]))
    stdout, stderr = run(output=str(tmp_path), dry_run=True)
    fresh = "  render every shard: there is no set built with these settings yet.\n"
    fails = "No sitemap section has any rows: the build would publish nothing and fail.\n"
    same = (
        "A shard's files keep their bytes, modification time and ETag when they come out "
        "the same.\n"
    )
    assert (
        (stdout, stderr)
        == (
            "".join(
                f"Site {several.name[role]!r} on {BASE_URLS[role]}:\n"
                f"Dry run: nothing is written. A build of {several.directory(tmp_path, role)} "
                f"would:\n{fresh}{listed}{same}"
                for role, listed in [
                    ("www", "  articles: render 1 of 1 shard(s): new files\n"),
                    ("shop", f"  articles: render 1 of 1 shard(s): new files\n{fails}"),
                ]
            )
            # A site no source lists has nothing to build, dry run or not.
            + f"Site {several.name['de']!r} on {BASE_URLS['de']}:\n"
            "No sitemap section is listed on this site (no registered source's sites include "
            "it): nothing to do.\n",
            "",
        )
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.django_db(transaction=True)
def test_jobs_build_each_site_in_processes_with_the_same_result(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles, PagesSource)
    articles_per_site(several, 5)
    run(output=str(tmp_path / "one"), verbosity=0)
    run(output=str(tmp_path / "two"), verbosity=0, jobs=2)
    for role in ROLES:
        files = snapshot(several.directory(tmp_path / "two", role), built=False)
        assert files == snapshot(several.directory(tmp_path / "one", role), built=False)
        assert len(locs(files["sitemap-articles-1.xml"])) == 5


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_counts_each_sites_own_rows(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles)
    bulk_articles(2_500, category=CategoryFactory.create(slug=several.name["www"]))
    bulk_articles(10, category=CategoryFactory.create(slug=several.name["shop"]))
    bulk_articles(1, category=CategoryFactory.create(slug=several.name["de"]))
    stdout = Terminal()
    call_command("build_sitemaps", output=str(tmp_path), stdout=stdout)
    output = stdout.getvalue()
    # Drawn after each chunk of SITEMAPKIT_CHUNK_SIZE (2,000) rows.
    assert re.search(r"\rarticles  \[#{19}-{5}\]  2,000/2,500 rows  ", output), output[:300]
    assert re.search(r"\rarticles  \[#{24}\]  10/10 rows  ", output), output[:300]
    assert "\r\x1b[Karticles: 2,500 URLs in 1 file" in output
    assert "\r\x1b[Karticles: 10 URLs in 1 file" in output


# -- storages --------------------------------------------------------------------------

STORAGE_BACKENDS = {
    "in-memory": "django.core.files.storage.InMemoryStorage",
    "file-system": "django.core.files.storage.FileSystemStorage",
}


@pytest.fixture(params=STORAGE_BACKENDS)
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    backend = STORAGE_BACKENDS[request.param]
    options = {"location": str(tmp_path / "storage")} if "FileSystem" in backend else {}
    stores = {"sitemaps": {"BACKEND": backend, "OPTIONS": options}}
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        yield storages["sitemaps"]


def stored(storage: Storage, prefix: str) -> dict[str, bytes]:
    files = {}
    for name in sorted(storage.listdir(prefix)[1]):
        with storage.open(f"{prefix}/{name}", "rb") as opened:
            files[name] = opened.read()
    return files


def test_a_storage_gets_a_prefix_per_site(
    several: Sites, storage: Storage, sources: Sources, tmp_path: Path
) -> None:
    sources(SiteArticles, PagesSource)
    articles_per_site(several, 3)
    run(output=str(tmp_path / "dir"), verbosity=0)
    stdout, _ = run()
    assert (
        f"Published to storage 'sitemaps' under '{several.name['de']}/' (6 files and the "
        "manifest): 6 written, 0 unchanged, 0 removed."
    ) in stdout.splitlines()
    assert sorted(storage.listdir("")[0]) == sorted(several.name.values())
    assert storage.listdir("")[1] == []
    for role in ROLES:
        expected = snapshot(several.directory(tmp_path / "dir", role), built=False)
        assert without_times(stored(storage, several.name[role])) == expected
    # The shop's lock is held: the shop alone fails, and removals stay in each prefix.
    Article.objects.filter(category__slug=several.name["www"]).delete()
    shop_before = stored(storage, several.name["shop"])
    with StorageDestination("sitemaps", f"{several.name['shop']}/").lock():
        _, _, code, message = failing_run(verbosity=0)
    assert (code, message) == (
        1,
        "The sitemaps of 1 of 3 sites failed (the other 2 were built):\n"
        f"- {several.name['shop']!r} (https://shop.example.com): Another build_sitemaps is "
        f"writing to storage 'sitemaps' under '{several.name['shop']}/'; wait for it to "
        "finish, then run this one again.",
    )
    assert stored(storage, several.name["shop"]) == shop_before
    assert sorted(stored(storage, several.name["www"])) == [
        *with_gz("sitemap.xml", "sitemap-pages-1.xml"),
        MANIFEST_FILENAME,
    ]
    assert len(stored(storage, several.name["de"])) == 7


class ShopQuotaExceeded(InMemoryStorage):
    """A bucket that refuses the shop's files: a failure while publishing, after the
    checks a build makes itself."""

    def save(self, name: str | None, content: Any, max_length: int | None = None) -> str:
        if name is not None and name.startswith("shop"):
            raise OSError(f"quota exceeded writing {name!r}")
        return super().save(name, content, max_length)


def test_a_storage_that_refuses_one_sites_files_fails_that_site_alone(
    several: Sites, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(PagesSource)
    stores = {"sitemaps": {"BACKEND": f"{__name__}.ShopQuotaExceeded"}}
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        _, _, code, message = failing_run(verbosity=0)
        storage = storages["sitemaps"]
        for role in ("www", "de"):
            assert len(stored(storage, several.name[role])) == 5
    shop = several.name["shop"]
    place = f"storage 'sitemaps' under '{shop}/'"
    # The first file refused: nothing of the shop's was uploaded.
    assert (code, message) == (
        1,
        "The sitemaps of 1 of 3 sites failed (the other 2 were built):\n"
        f"- {shop!r} (https://shop.example.com): Publishing to {place} stopped: OSError: "
        f"quota exceeded writing '{shop}/sitemap-pages-1.xml'. The files uploaded before "
        "it are in place, and the index, uploaded after every page, names only files that "
        "exist; run the build again.",
    )
    # An error the build foresees: told, with no traceback.
    assert [r for r in caplog.records if r.name == "django_sitemapkit"] == []


class UnforeseenOnShop(SiteArticles):
    """A bug in the project's source, met when the shop's rows are first asked for."""

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        if site.base_url == BASE_URLS["shop"]:
            raise RuntimeError("a bug in the source")
        return super().get_site_queryset(site)


def test_an_unforeseen_error_of_one_site_is_logged_and_the_others_are_listed(
    several: Sites, sources: Sources, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(UnforeseenOnShop)
    articles_per_site(several, 1)
    stdout, _, code, message = failing_run(output=str(tmp_path), dry_run=True)
    shop = several.name["shop"]
    assert (code, message) == (
        1,
        "The sitemaps of 1 of 3 sites failed (the other 2 were listed):\n"
        f"- {shop!r} (https://shop.example.com): RuntimeError: a bug in the source (the "
        "traceback is in the log)",
    )
    assert f"A build of {several.directory(tmp_path, 'de')} would:" in stdout
    [record] = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert record.getMessage() == f"build_sitemaps failed for site {shop!r}."
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], RuntimeError)
    assert os.listdir(tmp_path) == []


# -- files mode: each host gets its own files --------------------------------------------


@pytest.mark.parametrize("place", ["directory", "in-memory storage", "file-system storage"])
def test_files_mode_serves_each_host_its_own_files(
    several: Sites, sources: Sources, client: Client, tmp_path: Path, place: str
) -> None:
    sources(SiteArticles, PagesSource, only_on(Offers, several.name["shop"]))
    articles_per_site(several, 2)
    run(output=str(tmp_path), verbosity=0)
    served: dict[str, Any] = {"SITEMAPKIT_SERVE": "files", "SITEMAPKIT_OUTPUT_DIR": str(tmp_path)}
    if place != "directory":
        # In memory: read through the Storage API, by prefix; on the disk: as a directory.
        backend = "InMemoryStorage" if place == "in-memory storage" else "FileSystemStorage"
        options = {} if place == "in-memory storage" else {"location": str(tmp_path / "store")}
        served = {
            "SITEMAPKIT_SERVE": "files",
            "STORAGES": {
                "sitemaps": {
                    "BACKEND": f"django.core.files.storage.{backend}",
                    "OPTIONS": options,
                }
            },
            "SITEMAPKIT_STORAGE": "sitemaps",
        }
    with override_settings(**served):
        if place != "directory":
            run(verbosity=0)
        for role in ROLES:
            files = snapshot(several.directory(tmp_path, role))
            host = HOSTS[role]
            for name, content in files.items():
                if name == MANIFEST_FILENAME:
                    continue
                assert fetch(client, f"/{name}", Host=host)[:2] == (200, content), (role, name)
                if name.endswith(".xml"):
                    status, body, headers = fetch(
                        client, f"/{name}", Host=host, **{"Accept-Encoding": "gzip"}
                    )
                    assert (status, headers["Content-Encoding"], body) == (
                        200,
                        "gzip",
                        files[name + ".gz"],
                    )
        # Another site's file is not this host's; a host with no site has none.
        assert fetch(client, "/sitemap-offers-1.xml", Host=HOSTS["www"])[0] == 404
        assert fetch(client, "/sitemap.xml", Host="other.example.com")[0] == 404
        assert fetch(client, "/sitemap.xml.gz", Host="other.example.com")[0] == 404


def test_files_mode_names_the_host_in_vary_beside_accept_encoding(
    several: Sites, sources: Sources, client: Client, tmp_path: Path
) -> None:
    sources(SiteArticles, PagesSource)
    articles_per_site(several, 2)
    run(output=str(tmp_path), verbosity=0)
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(tmp_path)):
        gzip = {"Accept-Encoding": "gzip"}
        status, _, headers = fetch(client, "/sitemap.xml", Host=HOSTS["www"], **gzip)
        assert (status, headers["Vary"]) == (200, "Accept-Encoding, Host")
        unchanged = {"Host": HOSTS["www"], "If-None-Match": headers["ETag"], **gzip}
        again = client.get("/sitemap.xml", headers=unchanged)
        assert (again.status_code, again["Vary"]) == (304, "Accept-Encoding, Host")
        elsewhere = client.get("/sitemap.xml", headers={"Host": "other.example.com"})
        assert (elsewhere.status_code, elsewhere["Vary"]) == (404, "Host")


# -- a process of its own ----------------------------------------------------------------


def manage_sites(*args: str, database: Path) -> subprocess.CompletedProcess[str]:
    return manage(*args, settings="sites", env={"SITEMAPKIT_TEST_SQLITE_FILE": str(database)})


@pytest.mark.slow
def test_a_cron_run_exits_1_naming_the_failed_site_after_building_the_others(
    tmp_path: Path,
) -> None:
    database, output = tmp_path / "db.sqlite3", tmp_path / "sitemaps"
    assert (
        manage_sites("migrate", "--skip-checks", "--verbosity", "0", database=database).returncode
        == 0
    )
    builds(output / "shop").mkdir(parents=True)
    with open(lock_file(output / "shop"), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = manage_sites(
            "build_sitemaps", "--skip-checks", "--output", str(output), database=database
        )
    assert (result.returncode, result.stderr) == (
        1,
        "CommandError: The sitemaps of 1 of 3 sites failed (the other 2 were built):\n"
        f"- 'shop' (https://shop.example.com): Another build_sitemaps is writing to "
        f"{output / 'shop'}; wait for it to finish, then run this one again.\n",
    )
    headers = [line for line in result.stdout.splitlines() if line.startswith("Site ")]
    assert headers == [f"Site {role!r} on {BASE_URLS[role]}:" for role in ROLES]
    assert not (output / "shop").exists()
    assert os.listdir(builds(output / "shop")) == [".lock"]
    for role in ("www", "de"):
        index = (output / role / "sitemap.xml").read_bytes()
        assert index_locs(index) == [f"{BASE_URLS[role]}/sitemap-pages-1.xml"]
    unknown = manage_sites(
        "build_sitemaps",
        "--skip-checks",
        "--output",
        str(output),
        "--site",
        "nope",
        database=database,
    )
    assert (unknown.returncode, unknown.stdout, unknown.stderr) == (
        1,
        "",
        "CommandError: No site named 'nope'; the sites are 'www', 'shop', 'de' "
        "(SITEMAPKIT_SITES).\n",
    )


def test_a_site_no_section_lists_is_nothing_to_do(
    several: Sites, sources: Sources, tmp_path: Path
) -> None:
    # Not "no rows, or none valid", exit 1: no source lists the site at all.
    sources(only_on(Offers, several.name["shop"]))
    stdout, stderr = run(output=str(tmp_path), verbosity=1)
    nothing = (
        "No sitemap section is listed on this site (no registered source's sites include "
        "it): nothing to do."
    )
    assert (stdout.splitlines()[:2], stdout.splitlines()[-2:], stderr) == (
        [f"Site {several.name['www']!r} on {BASE_URLS['www']}:", nothing],
        [f"Site {several.name['de']!r} on {BASE_URLS['de']}:", nothing],
        "",
    )
    assert not several.directory(tmp_path, "www").exists()
    assert "sitemap.xml" in snapshot(several.directory(tmp_path, "shop"))
