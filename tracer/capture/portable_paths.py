"""Paths in what a trace captures, written the same on every machine.

A lecture's stderr, warnings, tracebacks and values may name files by absolute path: the project's
own (written relative to the project; the project root itself as ``.``), installed libraries
(``<site-packages>/…``), the standard library (``<stdlib>/…``) and the user's home (``<home>/…``;
the home folder itself as ``<home>``), each occurrence of each. The most specific place wins (a
virtual environment inside the project is ``<site-packages>``, not ``.venv/…``), so a trace made
in one checkout names the same files as one made in another, and ``check``'s drift compares what
the lecture did, not where it was installed. This module must not read or write traces.
"""

from __future__ import annotations

import os
import re
import site
import sys
import sysconfig
from pathlib import Path
from typing import Callable

SITE_PACKAGES = "<site-packages>/"
STDLIB = "<stdlib>/"
HOME = "<home>/"


def _forms(path: str) -> set[str]:
    """``path`` as given and resolved, each ending in one separator."""
    forms = set()
    for form in (path, os.path.realpath(path)):
        if form and form != os.sep:
            forms.add(form.rstrip(os.sep) + os.sep)
    return forms


def _site_packages() -> set[str]:
    places: set[str] = set()
    try:
        places.update(site.getsitepackages())
    except AttributeError:  # some embedded interpreters
        pass
    places.add(site.getusersitepackages())
    paths = sysconfig.get_paths()
    places.update(paths[key] for key in ("purelib", "platlib") if key in paths)
    # .pth files and PYTHONPATH add further library folders (a layered environment's base)
    places.update(p for p in sys.path if Path(p).name in ("site-packages", "dist-packages"))
    return places


def replacements(project_root: Path) -> dict[str, str]:
    """Each absolute prefix (ending in a separator) and what it is written as."""
    table: dict[str, str] = {}
    home = str(Path.home())
    for prefix in _forms(home) if home not in ("", os.sep) else ():
        table[prefix] = HOME
    paths = sysconfig.get_paths()
    for place in {paths.get("stdlib", ""), paths.get("platstdlib", "")} - {""}:
        for prefix in _forms(place):
            table[prefix] = STDLIB
    for place in _site_packages():
        for prefix in _forms(place):
            table[prefix] = SITE_PACKAGES
    for prefix in _forms(str(project_root)):
        table.setdefault(prefix, "")  # a library folder that is the project itself stays a library
    return table


def path_scrubber(project_root: Path) -> Callable[[str], str]:
    """A function that writes every environment path in a text in its portable form."""
    table = replacements(project_root)
    return scrubber(table)


# What may follow a place named by itself (not a path under it): the text's end, a space, a quote, a
# closing bracket or a list separator. ``/home/ann/course2`` is not ``/home/ann/course`` itself.
_ITSELF_ENDS = r"(?=$|[\s'\"`:;,)\]}>|])"


def scrubber(table: dict[str, str]) -> Callable[[str], str]:
    """A function writing each prefix of ``table`` (ending in a separator) as its replacement, and the
    place itself (the project root, the home folder, named without a path under it) as the
    replacement without its separator (``<home>``; the project root as ``.``). Every occurrence."""
    itself = {prefix.rstrip(os.sep): (table[prefix].rstrip("/") or ".") for prefix in table}
    # Longest first: the most specific place wins (regex alternation takes the first that matches).
    places = sorted(itself, key=len, reverse=True)
    sep = re.escape(os.sep)
    pattern = re.compile("|".join(f"{re.escape(place)}(?:{sep}|{_ITSELF_ENDS})" for place in places))

    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        return table[found] if found.endswith(os.sep) else itself[found]

    def scrub(text: str) -> str:
        if os.sep not in text:
            return text
        return pattern.sub(replace, text)

    return scrub


def library_name(portable: str) -> str | None:
    """The top-level package a portable path lies in (``<site-packages>/torch/x.py`` -> ``torch``), else None."""
    for prefix in (SITE_PACKAGES, STDLIB):
        if portable.startswith(prefix):
            first = portable[len(prefix) :].split("/", 1)[0]
            return first.removesuffix(".py") or None
    return None
