"""W006: no source is registered once every installed app's ``sitemaps.py`` is imported.

Autodiscovery (``apps.py``) imports the ``sitemaps.py`` of installed apps only. A
new user often keeps it in the project package, next to ``settings.py`` and
``urls.py`` (where ``django.contrib.sitemaps`` users keep theirs), or leaves the
app holding it out of ``INSTALLED_APPS``. The check names such files, found on
the file system: the packages of ``ROOT_URLCONF`` and of the settings module
(or their directory, where they are top-level modules), ``BASE_DIR`` and its
immediate subdirectories.

A project whose URLconf routes to the drop-in views (``django_sitemapkit.compat``,
docs/migrating.md, Step 1) has its sitemap served without a source: only a
stray ``sitemaps.py`` is worth a word then.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Warning
from django.urls import get_resolver

from django_sitemapkit.checks.compat import dropin_routed
from django_sitemapkit.registry import registry


class StrayModule(NamedTuple):
    """A ``sitemaps.py`` autodiscovery never imports."""

    path: Path
    package: str
    #: In the package of the settings or of the URLconf: not an app to install.
    in_project: bool

    def fix(self) -> str:
        if self.in_project:
            return (
                f"For {str(self.path)!r}: move it into an installed app, or import it from "
                "an installed app's ready()."
            )
        return f"For {str(self.path)!r}: add {self.package!r} to INSTALLED_APPS."


def check_discovery(**kwargs: Any) -> list[CheckMessage]:
    if registry.all():
        return []
    # A URLconf may import a sitemaps.py itself (as contrib users do): import
    # ROOT_URLCONF, as Django's own URL checks do, before deciding.
    # Django's URL checks report a URLconf that fails to import.
    with contextlib.suppress(Exception):
        get_resolver().url_patterns  # noqa: B018 - imports the URLconf
    if registry.all():
        return []
    strays = stray_modules()
    if not strays:
        if dropin_routed():
            return []
        return [
            Warning(
                "No sitemap source is registered: the sitemap index lists no sections.",
                hint="Sources are registered by the sitemaps.py module of an app in "
                "INSTALLED_APPS, which django_sitemapkit imports at start-up (a project "
                "package next to settings.py is not an app unless it is listed): check that "
                "the app is installed, and that each source class is decorated with "
                "@register (from django_sitemapkit import register).",
                id="sitemapkit.W006",
            )
        ]
    listed = ", ".join(repr(str(stray.path)) for stray in strays)
    verb = "is" if len(strays) == 1 else "are"
    return [
        Warning(
            f"No sitemap source is registered, and {listed} {verb} never imported: "
            "django_sitemapkit imports the sitemaps.py of installed apps only.",
            hint=" ".join(stray.fix() for stray in strays),
            id="sitemapkit.W006",
        )
    ]


def stray_modules() -> list[StrayModule]:
    app_directories = {Path(config.path).resolve() for config in apps.get_app_configs()}
    imported = {
        Path(file).resolve()
        for module in list(sys.modules.values())
        if isinstance(file := getattr(module, "__file__", None), str)
    }
    candidates: dict[Path, tuple[str, bool]] = {}
    for package in project_packages():
        directory = package_directory(package)
        if directory is not None:
            candidates.setdefault(directory.resolve(), (package, True))
    # A flat project (settings.py, urls.py, sitemaps.py side by side, settings
    # module "settings") has no package: its sitemaps.py sits next to them.
    for directory in flat_project_directories():
        candidates.setdefault(directory.resolve(), ("", True))
    base_dir = getattr(settings, "BASE_DIR", None)
    if isinstance(base_dir, (str, os.PathLike)) and Path(base_dir).is_dir():
        candidates.setdefault(Path(base_dir).resolve(), ("", True))
        for child in sorted(Path(base_dir).iterdir()):
            if child.is_dir() and child.name.isidentifier():
                candidates.setdefault(child.resolve(), (child.name, False))
    strays = []
    for directory, (package, in_project) in candidates.items():
        path = directory / "sitemaps.py"
        if directory in app_directories or path in imported or not declares_sources(path):
            continue
        strays.append(StrayModule(path, package, in_project))
    return strays


def project_packages() -> list[str]:
    """The packages holding ``ROOT_URLCONF`` and the settings module, innermost first."""
    packages: list[str] = []
    for name in project_module_names():
        parts = name.split(".")
        packages += [".".join(parts[:end]) for end in range(len(parts) - 1, 0, -1)]
    return list(dict.fromkeys(packages))


def flat_project_directories() -> list[Path]:
    """The directories of ``ROOT_URLCONF`` and the settings module where either is a
    top-level module, not in a package."""
    directories = []
    for name in project_module_names():
        if "." in name:
            continue
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            try:
                spec = importlib.util.find_spec(name)  # a top-level name: located, not imported
            except (ImportError, ValueError):
                continue
            file = spec.origin if spec is not None else None
        if isinstance(file, str) and Path(file).name != "__init__.py" and Path(file).is_file():
            directories.append(Path(file).parent)
    return directories


def project_module_names() -> list[str]:
    names = [
        settings.ROOT_URLCONF,
        settings.SETTINGS_MODULE or os.environ.get("DJANGO_SETTINGS_MODULE"),
    ]
    return [name for name in names if isinstance(name, str)]


def package_directory(package: str) -> Path | None:
    """Where ``package`` lives, found without importing anything new: from the module
    if it is imported, else from the top-level package's spec and the file system."""
    module = sys.modules.get(package)
    if module is not None:
        paths = list(getattr(module, "__path__", []))
        return Path(paths[0]) if paths else None
    top, *rest = package.split(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: located, not imported
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
    return directory if directory.is_dir() else None


def declares_sources(path: Path) -> bool:
    """Whether ``path`` is a ``sitemaps.py`` written for django_sitemapkit.

    Its text is read, never imported: importing a project's module at check time
    would run its code (and could fail, or have effects). A ``sitemaps.py`` of
    ``django.contrib.sitemaps`` classes, left from a migration, is no stray
    source of ours: naming it would send the user the wrong way.
    """
    try:
        return "django_sitemapkit" in path.read_text(errors="replace")
    except OSError:
        return False
