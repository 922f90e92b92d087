"""The system checks the settings table writes: a setting whose rule (``conf.Settings``)
refuses its value gets one Error, "SITEMAPKIT_X is <value>, not <what the rule
accepts>.", with the id and hint of ``FINDINGS``.

Each subject's module calls ``check_values()`` where its checks run, so the order
of the findings is the subject's; what more a value must be (another setting's,
the database's, a URL's) is checked there by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.core.checks import CheckMessage, Error

from django_sitemapkit.conf import (
    GZIP_LEVEL,
    HTML_PAGE_SIZE,
    MAX_BYTES,
    MAX_URLS,
    SITE_SCHEMES,
    SMALLEST_MAX_BYTES,
    TABLE,
)

KEY_HINT = (
    "Set SITEMAPKIT_INDEXNOW_KEY to 8 to 128 ASCII letters, digits and '-', such as "
    "secrets.token_hex(16) makes, or to None to turn IndexNow off."
)


def scheme_hint(value: object) -> str:
    """The scheme meant, where a case, whitespace or "://" hides it."""
    meant = value.strip().lower().removesuffix("://") if isinstance(value, str) else None
    if meant in SITE_SCHEMES:
        return f"Set SITEMAPKIT_SITE_SCHEME = {meant!r}."
    return (
        "Set SITEMAPKIT_SITE_SCHEME = 'https' (or 'http' for sites served without "
        "TLS), or remove it for 'https'."
    )


@dataclass(frozen=True)
class Finding:
    """The check of one setting's rule."""

    id: str
    #: The fix; a function of the value where the fix depends on it.
    hint: str | Callable[[object], str]
    #: Where the message words the rule otherwise than the rule does.
    expected: str | None = None


#: The check of each setting that has a rule: the table's rows with one, no other.
FINDINGS = {
    "SITE_SCHEME": Finding(id="sitemapkit.E041", hint=scheme_hint),
    "LIMIT": Finding(
        id="sitemapkit.E012",
        hint=f"Set SITEMAPKIT_LIMIT to at most {MAX_URLS} (the protocol's cap), or remove it.",
    ),
    "STRICT": Finding(
        id="sitemapkit.E016",
        hint="Set SITEMAPKIT_STRICT = True to raise on invalid entries, or False to skip "
        "and log them.",
    ),
    "HTML_PAGE_SIZE": Finding(
        id="sitemapkit.E114",
        hint=f"Set SITEMAPKIT_HTML_PAGE_SIZE to a whole number from 1 to {MAX_URLS}, such as "
        f"{HTML_PAGE_SIZE} (the default), or remove it.",
    ),
    # -- robots.txt --
    "ROBOTS": Finding(
        id="sitemapkit.E070",
        hint="Set SITEMAPKIT_ROBOTS = 'warn' to be told which listed URLs robots.txt "
        "disallows, 'exclude' to leave them out, or None (the default) to read no robots.txt.",
        expected="None, 'warn' or 'exclude'",
    ),
    "ROBOTS_AGENTS": Finding(
        id="sitemapkit.E071",
        hint="Set it to the product tokens of robots.txt's User-agent lines, without a "
        "version, such as ('Googlebot', 'Bingbot') (the default).",
    ),
    # -- end of robots.txt --
    "MAX_BYTES": Finding(
        id="sitemapkit.E018",
        hint=f"Set SITEMAPKIT_MAX_BYTES to a number of bytes from {SMALLEST_MAX_BYTES} to "
        f"{MAX_BYTES} (the protocol's 50 MiB), or remove it.",
    ),
    "OUTPUT_DIR": Finding(
        id="sitemapkit.E019",
        hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path of a directory, as a str "
        "or a pathlib.Path, or to None.",
    ),
    "GZIP": Finding(
        id="sitemapkit.E022",
        hint="Set SITEMAPKIT_GZIP = True to write a .xml.gz file next to every file, or "
        "False to write none.",
    ),
    "GZIP_LEVEL": Finding(
        id="sitemapkit.E113",
        hint="Set SITEMAPKIT_GZIP_LEVEL to a whole number from 1 (fastest) to 9 (smallest), "
        f"such as {GZIP_LEVEL} (the default), or remove it.",
    ),
    "GZIP_LINKS": Finding(
        id="sitemapkit.E022",
        hint="Set SITEMAPKIT_GZIP_LINKS = True to name the .xml.gz files in the "
        "index, or False to name the .xml files.",
    ),
    "SERVE": Finding(
        id="sitemapkit.E024",
        hint="Set SITEMAPKIT_SERVE to 'database' (the default), 'files' or 'files-or-database'.",
    ),
    "FULL_BUILD_EVERY": Finding(
        id="sitemapkit.E047",
        hint="Set it to a datetime.timedelta such as timedelta(days=1) (how often a build "
        "renders every shard), to None to do so only with build_sitemaps --full, or remove it.",
        expected="a timedelta of 0 or more, or None",
    ),
    "MAX_REMOVED": Finding(
        id="sitemapkit.E080",
        hint="Set it to the percentage of a site's URLs a build may remove (such as 20), "
        "to None for no limit, or remove it.",
        expected="a number from 0 to 100, or None",
    ),
    "NEWS_MAX_AGE": Finding(
        id="sitemapkit.E030",
        hint="Set it to a datetime.timedelta such as timedelta(days=2) (Google News "
        "reads articles of the last two days), or remove it.",
        expected="a positive timedelta",
    ),
    "INDEXNOW_KEY": Finding(id="sitemapkit.E044", hint=KEY_HINT),
    "INDEXNOW_TIMEOUT": Finding(
        id="sitemapkit.E046",
        hint="Set SITEMAPKIT_INDEXNOW_TIMEOUT to a number of seconds such as 10 (the "
        "default), or remove it.",
    ),
    "INDEXNOW_DEADLINE": Finding(
        id="sitemapkit.E054",
        hint="Set SITEMAPKIT_INDEXNOW_DEADLINE to a number of seconds such as 60 (the "
        "default), or remove it.",
    ),
    # -- fresh on commit --
    "CHANGES": Finding(
        id="sitemapkit.E110",
        hint="Set SITEMAPKIT_CHANGES = 'record' to record changes for build_sitemaps "
        "--changed, 'celery' or 'tasks' to refresh on that engine too, or None (the default).",
        expected="None, 'record', 'celery' or 'tasks'",
    ),
    "CHANGES_DELAY": Finding(
        id="sitemapkit.E111",
        hint="Set it to a datetime.timedelta such as timedelta(seconds=10), or remove it.",
    ),
    # -- end of fresh on commit --
    "QUEUE": Finding(
        id="sitemapkit.E049",
        hint="Set it to the name of the queue the shards' workers consume (Celery's, "
        "or the Tasks backend's), or to None for the engine's default queue.",
        expected="a queue's name or None",
    ),
    "TASK_BACKEND": Finding(
        id="sitemapkit.E050",
        hint='Set it to a key of TASKS ("default" unless the project names another), or remove it.',
        expected="the name of a backend",
    ),
    "SHARD_TIMEOUT": Finding(
        id="sitemapkit.E051",
        hint="Set it to a datetime.timedelta such as timedelta(minutes=10), or remove it.",
    ),
    "SHARD_ATTEMPTS": Finding(
        id="sitemapkit.E053",
        hint="Set it to how many times in all a shard whose worker was lost is sent "
        "(3, say), or remove it.",
    ),
    "BUILD_DEADLINE": Finding(
        id="sitemapkit.E052",
        hint="Set it to a datetime.timedelta such as timedelta(hours=6), or remove it.",
    ),
    "VERIFY_TIMEOUT": Finding(
        id="sitemapkit.E122",
        hint="Set SITEMAPKIT_VERIFY_TIMEOUT to a number of seconds such as 5 (the default), "
        "or remove it.",
    ),
}


def check_values(*names: str) -> list[CheckMessage]:
    """An Error for each of the settings named whose value its rule refuses."""
    errors: list[CheckMessage] = []
    for name in names:
        row, finding = TABLE[name], FINDINGS[name]
        assert row.rule is not None, name  # FINDINGS has only the rows with one
        value = row.raw()
        if row.rule.accepts(value):
            continue
        expected = finding.expected or row.rule.expected
        hint = finding.hint if isinstance(finding.hint, str) else finding.hint(value)
        errors.append(
            Error(f"{row.setting} is {value!r}, not {expected}.", hint=hint, id=finding.id)
        )
    return errors
