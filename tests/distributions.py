"""The release's two distributions, built and tried as a user would get them.

    python3 tests/distributions.py            CI's release step (.ci/run), from the clone

The step makes a throwaway virtual environment with build and twine, builds
the sdist from the clone and the wheel from that sdist (``python -m build``,
as a release does), runs ``twine check --strict`` on both, installs the wheel
alone into a clean virtual environment (no dependency group, no test tool:
pip takes Django from the package index), writes a minimal project there,
runs ``manage.py check`` and fetches /sitemap.xml and the page it lists with
Django's test client. It exits non-zero at the first failure, which it names.

tests/test_packaging.py builds with the same functions and tries the wheel
with the same project.
"""

# Standard library only, and Python 3.9 syntax: CI runs this before any virtual
# environment exists, under the machine's python3, as it runs tests/runtests.py.
from __future__ import annotations

import email.parser
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from collections.abc import Sequence
from email.message import Message
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: What the release step installs to build and check: build, the PyPA's
#: frontend, and twine, whose ``check`` is the package index's own rendering.
RELEASE_TOOLS = ("build>=1.2", "twine>=6")
#: The minimal project's files: one installed app with one static page.
PROJECT = {
    "manage.py": """\
import os
import sys

from django.core.management import execute_from_command_line

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smoke.settings")
execute_from_command_line(sys.argv)
""",
    "smoke/__init__.py": "",
    "smoke/settings.py": """\
SECRET_KEY = "a key for a throwaway project, never deployed"
ALLOWED_HOSTS = ["www.example.com"]
INSTALLED_APPS = ["django_sitemapkit", "smoke"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}}
ROOT_URLCONF = "smoke.urls"
USE_TZ = True
SITEMAPKIT_BASE_URL = "https://www.example.com"
""",
    "smoke/urls.py": """\
from django.urls import include, path

urlpatterns = [path("", include("django_sitemapkit.urls"))]
""",
    "smoke/sitemaps.py": """\
from django_sitemapkit import StaticSource, register


@register
class PageSource(StaticSource):
    name = "pages"
    urls = ["/about/"]
""",
}
#: Run by ``manage.py shell -c``: the index, then the page it lists, each a 200
#: whose body names the next; prints the package's version and where it is from.
FETCH = """\
from django.test import Client
import django_sitemapkit

client = Client(HTTP_HOST="www.example.com", secure=True)
for path, wanted in [
    ("/sitemap.xml", b"<loc>https://www.example.com/sitemap-pages-1.xml</loc>"),
    ("/sitemap-pages-1.xml", b"<loc>https://www.example.com/about/</loc>"),
]:
    response = client.get(path)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 200, (path, response.status_code, body[:500])
    assert response["Content-Type"].startswith("application/xml"), (path, response["Content-Type"])
    assert wanted in body, (path, body[:500])
print(django_sitemapkit.__version__, django_sitemapkit.__file__)
"""


class StepFailed(Exception):
    """A step of the release check failed; the message says which and why."""


def run(command: Sequence[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """``command``'s output (stdout and stderr together); StepFailed with it on failure.

    Without PYTHONWARNINGS, which tox sets to make a DeprecationWarning an error
    in the suite: here it would stop the tools (pip on Python 3.13 warns of its
    own code), and the project in the clean environment runs as a user's does.
    """
    environ = {k: v for k, v in (env or os.environ).items() if k != "PYTHONWARNINGS"}
    done = subprocess.run(
        list(command),
        cwd=cwd,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        # Each argument's first line: the code given to "shell -c" is not repeated.
        shown = " ".join(str(part).partition("\n")[0] for part in command)
        raise StepFailed(f"{shown} exited with {done.returncode}:\n{done.stdout[-4000:]}")
    return done.stdout


def make_venv(directory: Path, *requirements: str) -> Path:
    """A new virtual environment with ``requirements`` installed; its Python."""
    venv.EnvBuilder(with_pip=True, clear=True).create(directory)
    python = directory / "bin" / "python"
    if requirements:
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        run([*pip, *requirements])
    return python


def build(python: Path, source: Path, outdir: Path, scratch: Path) -> tuple[Path, Path]:
    """The sdist of ``source``, and the wheel built from that sdist, in ``outdir``.

    setuptools' build and egg-info directories go to ``scratch`` (its
    DIST_EXTRA_CONFIG), never into ``source``: CI's passes build the wheel
    from the same tree at the same time, and two builds in one build/ once
    removed each other's files (tox.ini's [testenv:.pkg]).
    """
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "egg").mkdir(exist_ok=True)
    config = scratch / "setup.cfg"
    config.write_text(
        f"[build]\nbuild_base = {scratch / 'build'}\n[egg_info]\negg_base = {scratch / 'egg'}\n"
    )
    env = {**os.environ, "DIST_EXTRA_CONFIG": str(config)}
    run([str(python), "-m", "build", "--outdir", str(outdir), str(source)], env=env)
    (sdist,) = outdir.glob("*.tar.gz")
    (wheel,) = outdir.glob("*.whl")
    return sdist, wheel


def members(archive: Path) -> set[str]:
    """The files of an sdist (below its top directory) or of a wheel."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            return {name for name in wheel.namelist() if not name.endswith("/")}
    with tarfile.open(archive) as sdist:
        return {member.name.partition("/")[2] for member in sdist.getmembers() if member.isfile()}


def metadata(wheel: Path) -> Message:
    """The wheel's METADATA: the headers and the long description the index shows."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(name).decode("utf-8")
    return email.parser.Parser().parsestr(text)


def try_wheel(python: Path, wheel: Path, project: Path) -> str:
    """``wheel`` installed with ``python`` (a clean environment's), a minimal project
    written in ``project``, checked, and its sitemap fetched; the version served."""
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, str(wheel)])
    for name, text in PROJECT.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    # -E -s: no PYTHONPATH, no user site; the project's directory and the clean
    # environment are all Python sees, so the package imported is the wheel's.
    manage = [str(python), "-E", "-s", "manage.py"]
    # The project's settings, whatever the caller's are (pytest-django sets its own).
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "smoke.settings"}
    run([*manage, "check", "--fail-level", "WARNING"], cwd=project, env=env)
    fetched = run([*manage, "shell", "--no-imports", "-c", FETCH], cwd=project, env=env)
    version, _, imported = fetched.strip().rpartition("\n")[2].partition(" ")
    environment = python.parent.parent.resolve()
    if environment not in Path(imported).resolve().parents:
        raise StepFailed(f"the project imported {imported!r}, not the wheel in {environment}")
    return version


def main(argv: Sequence[str]) -> int:
    if argv:
        sys.exit(f"distributions: no arguments are taken, got {list(argv)!r}")
    started = time.monotonic()

    def say(line: str) -> None:
        print(f"distributions: {line} ({time.monotonic() - started:.0f} s)", flush=True)

    with tempfile.TemporaryDirectory(prefix="sitemapkit-release-") as scratch:
        work = Path(scratch)
        try:
            tools = make_venv(work / "tools", *RELEASE_TOOLS)
            say(f"{', '.join(RELEASE_TOOLS)} installed in a throwaway environment")
            sdist, wheel = build(tools, ROOT, work / "dist", work / "setuptools")
            say(f"built {sdist.name}, and {wheel.name} from it")
            twine = [str(tools), "-m", "twine", "--no-color", "check", "--strict"]
            run([*twine, str(sdist), str(wheel)])
            say("twine check --strict passed for both")
            clean = make_venv(work / "clean")
            (work / "project").mkdir()
            version = try_wheel(clean, wheel, work / "project")
            say(f"the wheel alone in a clean environment: check passed, sitemap {version} served")
        except StepFailed as failure:
            print(f"distributions: FAILED: {failure}", file=sys.stderr)
            return 1
    say("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
