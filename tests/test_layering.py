"""The two sides of the package stay apart: capture never imports rendering libraries, the site
renderer never imports torch or the capture modules. Checked on the import statements of every
module (static, so an import hidden in a function body counts too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tracer

PACKAGE = Path(tracer.__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def side(name: str) -> list[Path]:
    return sorted((PACKAGE / name).glob("*.py"))


def forbidden(names: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize("path", side("site"), ids=lambda p: p.name)
def test_site_modules_do_not_import_torch_or_capture(path: Path) -> None:
    assert forbidden(imported_modules(path), ("torch", "numpy", "tracer.capture")) == []


@pytest.mark.parametrize("path", side("capture"), ids=lambda p: p.name)
def test_capture_modules_do_not_import_rendering(path: Path) -> None:
    assert forbidden(imported_modules(path), ("jinja2", "mkdocs", "markdown", "markupsafe", "pygments", "tracer.site")) == []


def test_both_sides_exist() -> None:
    # a rename that empties a side must not make the two tests above pass vacuously
    assert len(side("site")) >= 5 and len(side("capture")) >= 5


def test_checker_sees_imports() -> None:
    assert "torch" in imported_modules(PACKAGE / "capture" / "values.py") or "torch" in imported_modules(PACKAGE / "capture" / "memory.py")


@pytest.mark.parametrize("name", ["source_map.py", "layout.py", "exit_codes.py", "trace_format.py", "helper_files.py"])
def test_shared_modules_both_sides_import_stay_light(name: str) -> None:
    # Imported by capture and site alike: standard library (and jsonschema, lazily) only, neither side.
    import sys

    imported = {n.split(".")[0] for n in imported_modules(PACKAGE / name)}
    assert imported - set(sys.stdlib_module_names) - {"tracer", "jsonschema"} == set()
    assert forbidden(imported_modules(PACKAGE / name), ("tracer.capture", "tracer.site")) == []
