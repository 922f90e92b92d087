"""W006: no source registered, and the sitemaps.py files autodiscovery never imports
(checks/sources/discovery.py). The projects are real files in a temporary directory."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.checks import Warning
from django.core.management import call_command
from django.test import override_settings

from django_sitemapkit.checks import check_discovery

SOURCES_TEXT = (
    "from django_sitemapkit import StaticSource, register\n\n\n"
    "@register\nclass PagesSource(StaticSource):\n    name = 'pages'\n    urls = ['/']\n"
)
PACKAGES = ("strayproj", "strayconf", "blog", "notes")


def write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project as a new user lays it out: the URLconf package and the settings
    package each with a sitemaps.py, an app left out of INSTALLED_APPS, and a
    django.contrib.sitemaps module that is none of ours."""
    write(tmp_path / "strayproj" / "__init__.py")
    write(tmp_path / "strayproj" / "urls.py", "urlpatterns = []\n")
    write(tmp_path / "strayproj" / "sitemaps.py", SOURCES_TEXT)
    write(tmp_path / "strayconf" / "__init__.py")
    write(tmp_path / "strayconf" / "settings.py")
    write(tmp_path / "strayconf" / "sitemaps.py", SOURCES_TEXT)
    write(tmp_path / "blog" / "__init__.py")
    write(tmp_path / "blog" / "sitemaps.py", SOURCES_TEXT)
    write(tmp_path / "notes" / "sitemaps.py", "from django.contrib.sitemaps import Sitemap\n")
    write(tmp_path / "manage.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path.resolve()
    for name in list(sys.modules):
        if name.split(".")[0] in PACKAGES:
            del sys.modules[name]


def test_w006_names_each_stray_sitemaps_py(project: Path, sources: Callable[..., None]) -> None:
    sources()
    with override_settings(
        ROOT_URLCONF="strayproj.urls", SETTINGS_MODULE="strayconf.settings", BASE_DIR=project
    ):
        messages = check_discovery()
    urls_package = str(project / "strayproj" / "sitemaps.py")
    settings_package = str(project / "strayconf" / "sitemaps.py")
    app = str(project / "blog" / "sitemaps.py")
    assert messages == [
        Warning(
            f"No sitemap source is registered, and {urls_package!r}, {settings_package!r}, "
            f"{app!r} are never imported: django_sitemapkit imports the sitemaps.py of "
            "installed apps only.",
            hint=f"For {urls_package!r}: move it into an installed app, or import it from an "
            f"installed app's ready(). For {settings_package!r}: move it into an installed "
            f"app, or import it from an installed app's ready(). For {app!r}: add 'blog' to "
            "INSTALLED_APPS.",
            id="sitemapkit.W006",
        )
    ]
    assert "strayproj.sitemaps" not in sys.modules  # read, never imported


def test_w006_one_app_left_out_of_installed_apps(
    project: Path, sources: Callable[..., None]
) -> None:
    sources()
    (project / "strayproj" / "sitemaps.py").unlink()
    (project / "strayconf" / "sitemaps.py").unlink()
    with override_settings(ROOT_URLCONF="strayproj.urls", BASE_DIR=str(project)):
        messages = check_discovery()
    app = str(project / "blog" / "sitemaps.py")
    assert messages == [
        Warning(
            f"No sitemap source is registered, and {app!r} is never imported: "
            "django_sitemapkit imports the sitemaps.py of installed apps only.",
            hint=f"For {app!r}: add 'blog' to INSTALLED_APPS.",
            id="sitemapkit.W006",
        )
    ]


def test_w006_quiet_when_the_urlconf_imports_the_sitemaps_py(
    project: Path, sources: Callable[..., None]
) -> None:
    # As django.contrib.sitemaps users do: urls.py imports the project's sitemaps.py.
    sources()
    write(project / "strayproj" / "urls.py", "import strayproj.sitemaps\n\nurlpatterns = []\n")
    with override_settings(ROOT_URLCONF="strayproj.urls", BASE_DIR=project):
        assert check_discovery() == []


@pytest.fixture
def flat_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project with no package: settings, URLconf and sitemaps.py side by side in
    BASE_DIR (settings module "settings", here "flatsettings")."""
    write(tmp_path / "flatsettings.py")
    write(tmp_path / "flaturls.py", "urlpatterns = []\n")
    write(tmp_path / "sitemaps.py", SOURCES_TEXT)
    write(tmp_path / "manage.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path.resolve()
    for name in ("flatsettings", "flaturls"):
        sys.modules.pop(name, None)


def flat_w006(path: Path) -> Warning:
    return Warning(
        f"No sitemap source is registered, and {str(path)!r} is never imported: "
        "django_sitemapkit imports the sitemaps.py of installed apps only.",
        hint=f"For {str(path)!r}: move it into an installed app, or import it from an "
        "installed app's ready().",
        id="sitemapkit.W006",
    )


def test_w006_flat_project_sitemaps_py_in_base_dir(
    flat_project: Path, sources: Callable[..., None]
) -> None:
    sources()
    with override_settings(BASE_DIR=flat_project):
        assert check_discovery() == [flat_w006(flat_project / "sitemaps.py")]


@pytest.mark.parametrize("setting", ["ROOT_URLCONF", "SETTINGS_MODULE"])
def test_w006_flat_project_next_to_a_top_level_module(
    flat_project: Path, sources: Callable[..., None], setting: str
) -> None:
    # No BASE_DIR: the directory of the top-level settings or URLconf module is read.
    sources()
    modules = {"ROOT_URLCONF": "flaturls", "SETTINGS_MODULE": "flatsettings"}
    with override_settings(BASE_DIR=None, **{setting: modules[setting]}):
        assert check_discovery() == [flat_w006(flat_project / "sitemaps.py")]
    assert "sitemaps" not in sys.modules  # read, never imported


GENERAL_W006 = Warning(
    "No sitemap source is registered: the sitemap index lists no sections.",
    hint="Sources are registered by the sitemaps.py module of an app in INSTALLED_APPS, which "
    "django_sitemapkit imports at start-up (a project package next to settings.py is not an "
    "app unless it is listed): check that the app is installed, and that each source class "
    "is decorated with @register (from django_sitemapkit import register).",
    id="sitemapkit.W006",
)


def test_w006_without_a_stray_file_gives_the_general_causes(
    sources: Callable[..., None],
) -> None:
    sources()
    assert check_discovery() == [GENERAL_W006]


def test_w006_quiet_with_sources() -> None:
    assert check_discovery() == []


def test_w006_is_registered(sources: Callable[..., None]) -> None:
    sources()
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "?: (sitemapkit.W006) No sitemap source is registered" in out.getvalue()


@override_settings(ROOT_URLCONF="testapp.urls_dropin")
def test_w006_quiet_while_the_drop_in_serves_the_sitemap(sources: Callable[..., None]) -> None:
    # Found by following docs/migrating.md: Step 1 serves contrib's classes through
    # the drop-in views, with nothing registered, and W006 called that a fault.
    sources()
    assert check_discovery() == []
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "sitemapkit.W006" not in out.getvalue()


def test_w006_names_a_stray_file_under_the_drop_in_too(
    project: Path, sources: Callable[..., None]
) -> None:
    # A sitemaps.py of sources that is never imported is lost whatever serves the rest.
    sources()
    (project / "strayproj" / "sitemaps.py").unlink()
    (project / "strayconf" / "sitemaps.py").unlink()
    with override_settings(ROOT_URLCONF="testapp.urls_dropin", BASE_DIR=project):
        assert check_discovery() == [
            Warning(
                f"No sitemap source is registered, and {str(project / 'blog' / 'sitemaps.py')!r}"
                " is never imported: django_sitemapkit imports the sitemaps.py of installed "
                "apps only.",
                hint=f"For {str(project / 'blog' / 'sitemaps.py')!r}: add 'blog' to "
                "INSTALLED_APPS.",
                id="sitemapkit.W006",
            )
        ]
