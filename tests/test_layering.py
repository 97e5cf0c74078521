"""The two sides of the package stay apart: capture never imports rendering libraries, the site
renderer never imports torch or the capture modules, the shared contract imports neither, and only
the commands layer (``tracer.commands``, ``tracer.cli``) imports both; the site's layers only look
down (model < cards < pages < plugin); no module of ``tracer`` is part of an import circle, and none
imports another module's ``_private`` name. Checked on the import
statements of every module (static, so an import hidden in a function body counts too), and at run
time: importing the MkDocs plugin in a fresh interpreter loads no capture module and no torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    return sorted((PACKAGE / name).rglob("*.py"))  # subpackages (capture/ranks/) included


def forbidden(names: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize("path", side("site"), ids=lambda p: p.name)
def test_site_modules_do_not_import_torch_or_capture(path: Path) -> None:
    assert forbidden(imported_modules(path), ("torch", "numpy", "tracer.capture")) == []


@pytest.mark.parametrize("path", side("capture"), ids=lambda p: p.name)
def test_capture_modules_do_not_import_rendering(path: Path) -> None:
    assert forbidden(imported_modules(path), ("jinja2", "mkdocs", "markdown", "markupsafe", "pygments", "tracer.site")) == []


@pytest.mark.parametrize("path", side("capture") + side("site") + side("contract"), ids=lambda p: p.name)
def test_only_the_commands_layer_imports_the_commands(path: Path) -> None:
    assert forbidden(imported_modules(path), ("tracer.commands", "tracer.cli")) == []


def test_both_sides_exist() -> None:
    # a rename that empties a side must not make the tests above pass vacuously
    assert len(side("site")) >= 5 and len(side("capture")) >= 5 and len(side("contract")) >= 4
    assert len(side("commands")) >= 7


def fresh_interpreter_modules(statement: str) -> set[str]:
    """The modules a fresh interpreter has loaded after ``statement``."""
    done = subprocess.run(
        [sys.executable, "-c", f"{statement}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PACKAGE.parent,
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("module", ["tracer.site.mkdocs_plugin", "tracer.site.pages.quiz", "tracer.contract.trace_format"])
def test_the_site_side_loads_no_capture_module_and_no_torch_at_run_time(module: str) -> None:
    # The static rules above see import statements; this sees what really loads (a package root that
    # imports the authoring API eagerly would pull the capture side, and torch, into every site build).
    loaded = fresh_interpreter_modules(f"import {module}")
    assert module in loaded
    assert sorted(m for m in loaded if m == "tracer.capture" or m.startswith("tracer.capture.") or m == "torch") == []


def test_the_authoring_api_still_loads_from_the_package_root() -> None:
    # the lazy root must still hand lectures the authoring API (and makes the runtime test able to fail)
    loaded = fresh_interpreter_modules("from tracer import text\nassert callable(text)")
    assert "tracer.capture.api" in loaded


def test_checker_sees_imports() -> None:
    assert "torch" in imported_modules(PACKAGE / "capture" / "values.py") or "torch" in imported_modules(
        PACKAGE / "capture" / "memory.py"
    )


@pytest.mark.parametrize("path", side("contract") + [PACKAGE / "exit_codes.py"], ids=lambda p: p.name)
def test_shared_modules_both_sides_import_stay_light(path: Path) -> None:
    # Imported by capture and site alike: standard library (and jsonschema or jsonschema-rs, lazily) only, neither side.
    imported = {n.split(".")[0] for n in imported_modules(path)}
    assert imported - set(sys.stdlib_module_names) - {"tracer", "jsonschema", "jsonschema_rs"} == set()
    assert forbidden(imported_modules(path), ("tracer.capture", "tracer.site", "tracer.commands")) == []


# -- the import graph of tracer --------------------------------------------------------------------
def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if "course_template" not in p.parts}


def tracer_imports(path: Path, this: str | None = None) -> dict[str, set[str]]:
    """The tracer modules ``path`` (module ``this``) imports (a function-level import too), each with
    the names it takes from that module (``from M import a, b``; empty for ``import M``)."""
    this = this or module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    found.setdefault(alias.name, set())
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in MODULES:  # `from tracer.capture import api`: the module api
                    found.setdefault(submodule, set())
                elif base in MODULES:
                    found.setdefault(base, set()).add(alias.name)
    found.pop(this, None)
    return found


GRAPH = {name: tracer_imports(path) for name, path in MODULES.items()}


def import_circles(graph: dict[str, Any]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for other in graph.get(name, ()):
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in on_stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(circles)


def test_no_import_circle_in_tracer() -> None:
    assert import_circles(GRAPH) == []


def test_no_private_name_is_imported_from_another_module() -> None:
    reaches = sorted(
        f"{importer} imports {name} from {imported}"
        for importer, imports in GRAPH.items()
        for imported, names in imports.items()
        for name in names
        if name.startswith("_") and not name.startswith("__")
    )
    assert reaches == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reads(sources: dict[str, str]) -> list[str]:
    """``module:line: expr`` for each read of an underscore attribute (``x._codes``) that another
    module of ``sources`` (path -> text) defines on its own objects (``self._codes = ...``, ``def
    _classify``); ``self._x`` / ``cls._x`` are a class's own, and a name bound by ``import`` (``os._exit``)
    is another library's."""
    trees = {path: ast.parse(text) for path, text in sources.items()}
    defined: dict[str, set[str]] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                names = [node.attr] if node.value.id in ("self", "cls") else []
            else:
                names = []
            for name in filter(_private, names):
                defined.setdefault(name, set()).add(path)
    found = []
    for path, tree in trees.items():
        libraries = {
            alias.asname or alias.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for alias in n.names
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            base = node.value
            if isinstance(base, ast.Name) and (base.id in ("self", "cls") or base.id in libraries):
                continue
            if path not in defined.get(node.attr, {path}):
                found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


def test_no_module_reads_another_modules_private_state() -> None:
    # A class's underscore fields are its own: another module asks through its public methods.
    sources = {str(p.relative_to(PACKAGE.parent)): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}
    assert private_reads(sources) == []


def test_the_private_read_checker_sees_a_read() -> None:
    sources = {
        "a.py": "class Recorder:\n    def __init__(self):\n        self._codes = {}\n",
        "b.py": "import os\ndef f(recorder):\n    os._exit(0)\n    return recorder._codes\n",
    }
    assert private_reads(sources) == ["b.py:4: recorder._codes"]


# -- the site's layers ------------------------------------------------------------------------------
# model < cards < pages < plugin: a module may import its own layer and the ones below, never one above.
# markdown_ext (MathML, the sanitizer) sits at the bottom beside model; the plugin layer is every module
# directly in tracer/site (mkdocs_plugin, render_cache, gpu_run).
SITE_LAYERS = {"model": 0, "markdown_ext": 0, "cards": 1, "pages": 2}
PLUGIN_LAYER = 3


def site_layer(module: str) -> int | None:
    """The layer of a ``tracer.site`` module (None outside the site)."""
    parts = module.split(".")
    if parts[:2] != ["tracer", "site"]:
        return None
    return SITE_LAYERS[parts[2]] if len(parts) > 2 and parts[2] in SITE_LAYERS else PLUGIN_LAYER


def upward_imports(graph: dict[str, Any]) -> list[str]:
    """Every import of a site module from a higher layer than its own."""
    found = []
    for importer, imports in graph.items():
        low = site_layer(importer)
        if low is None:
            continue
        for imported in imports:
            high = site_layer(imported)
            if high is not None and high > low:
                found.append(f"{importer} imports {imported}")
    return sorted(found)


def test_site_layers_only_look_down() -> None:
    assert upward_imports(GRAPH) == []


def test_every_site_module_has_a_layer_and_each_layer_is_populated() -> None:
    # a site subfolder the table does not know would land in the plugin layer and slip past the rule
    subfolders = {p.name for p in (PACKAGE / "site").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert subfolders == set(SITE_LAYERS)
    counts = {layer: sum(site_layer(m) == layer for m in MODULES) for layer in range(PLUGIN_LAYER + 1)}
    assert all(count >= 3 for count in counts.values()), counts
    assert site_layer("tracer.site.mkdocs_plugin") == PLUGIN_LAYER and site_layer("tracer.capture.api") is None


def test_the_layer_checker_sees_an_upward_import() -> None:
    # A card reaching up to a page, a model record reaching up to a card, and a page reaching up to the
    # plugin are each caught; looking down (and across within a layer) is allowed.
    graph = {
        "tracer.site.cards.render": {"tracer.site.pages.read_page": set(), "tracer.site.model.page_model": set()},
        "tracer.site.model.line_records": {"tracer.site.cards.units": set(), "tracer.site.model.animate": set()},
        "tracer.site.pages.quiz": {"tracer.site.mkdocs_plugin": set(), "tracer.site.markdown_ext.mathml": set()},
        "tracer.site.mkdocs_plugin": {"tracer.site.pages.quiz": set(), "tracer.site.render_cache": set()},
    }
    assert upward_imports(graph) == [
        "tracer.site.cards.render imports tracer.site.pages.read_page",
        "tracer.site.model.line_records imports tracer.site.cards.units",
        "tracer.site.pages.quiz imports tracer.site.mkdocs_plugin",
    ]


def test_the_checkers_see_circles_and_private_names(tmp_path: Path) -> None:
    # The checkers above must be able to fail: a circle hidden in a function body, and a private name.
    assert import_circles({"a": {"b": set()}, "b": {"c": set()}, "c": {"a": set()}, "d": {"a": set()}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b": set()}, "b": set()}) == []
    module = tmp_path / "m.py"
    module.write_text(
        "def f():\n    from tracer.capture.runner import _status\n    from tracer.capture import api\n", encoding="utf-8"
    )
    assert tracer_imports(module, "tracer.m") == {"tracer.capture.runner": {"_status"}, "tracer.capture.api": set()}
    assert "tracer.capture.runner" in GRAPH["tracer.commands.run"] and "tracer.capture.ranks.spawn" in MODULES
