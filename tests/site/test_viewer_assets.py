"""The viewer is wired in one place: step mode's core (assets/viewer-core.js) lists its controllers and
its commands, each controller is one viewer-NAME.js file, and the plugin bundles every such file.
Read statically from the shipped scripts, so a file without its row (or a row without its file) fails
here before a browser test would; the browser tests (tests/browser/test_browser_keymap.py) check what
the same tables do on a page."""

from __future__ import annotations

import re
from pathlib import Path

from tracer.contract import paths
from tracer.site.viewer_assets import viewer_bundle, viewer_scripts

ASSETS = Path(paths.ASSETS_DIR)
CORE = (ASSETS / "viewer-core.js").read_text(encoding="utf-8")


def listed_controllers(core: str) -> list[str]:
    block = re.search(r"var CONTROLLERS = \[(.*?)\];", core, re.S)
    assert block, "viewer-core.js has no CONTROLLERS list"
    return re.findall(r'"([a-z]+)"', block.group(1))


def registered_controllers(assets: Path) -> dict[str, str]:
    """file name -> the controller name it registers with CHALKTRACE.controller."""
    found = {}
    for path in sorted(assets.glob("viewer-*.js")):
        names = re.findall(r'CHALKTRACE\.controller\("([a-z]+)"', path.read_text(encoding="utf-8"))
        if path.name != "viewer-core.js":
            assert len(names) == 1, f"{path.name} registers {names}"
            found[path.name] = names[0]
    return found


def test_each_controller_is_one_file_named_for_it_and_listed_once_in_the_core() -> None:
    registered = registered_controllers(ASSETS)
    assert all(file == f"viewer-{name}.js" for file, name in registered.items()), registered
    listed = listed_controllers(CORE)
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(registered.values())
    assert len(listed) >= 10


def test_the_checker_sees_a_controller_file_without_its_row(tmp_path: Path) -> None:
    (tmp_path / "viewer-core.js").write_text(CORE, encoding="utf-8")
    (tmp_path / "viewer-laser.js").write_text('window.CHALKTRACE.controller("laser", Laser);\n', encoding="utf-8")
    assert "laser" in registered_controllers(tmp_path).values()
    assert "laser" not in listed_controllers(CORE)


def test_every_command_in_the_table_is_registered_by_the_core_or_a_controller() -> None:
    table = re.search(r"var COMMANDS = \[(.*?)\n  \];", CORE, re.S)
    assert table
    commands = set(re.findall(r'command: "([a-z_]+)"', table.group(1)))
    moves = re.search(r"var MOVES = \[(.*?)\];", CORE)
    assert moves
    registered = set(re.findall(r'"([a-z_]+)"', moves.group(1)))
    registered |= set(re.findall(r"this\.commands\.([a-z_]+) =", CORE))
    for path in ASSETS.glob("viewer-*.js"):
        registered |= set(re.findall(r'addCommand\("([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert commands == registered
    # MOVES is defined once, in the core
    assert [p.name for p in ASSETS.glob("*.js") if "var MOVES = [" in p.read_text(encoding="utf-8")] == ["viewer-core.js"]


def test_the_bundle_runs_the_core_first_then_every_controller_then_the_plugins(tmp_path: Path) -> None:
    scripts = viewer_scripts(ASSETS)
    # the data unpacker is defined before the core, which calls it when it starts
    assert scripts[:5] == ("strings.js", "read.js", "quiz-parse.js", "step-data.js", "viewer-core.js")
    assert scripts[-1] == "ranks.js"
    assert set(scripts[5:-1]) == set(registered_controllers(ASSETS))
    # a new controller is one new file: the bundle picks it up by its name
    for name in scripts:
        (tmp_path / name).write_text(f"/* {name} */\n", encoding="utf-8")
    (tmp_path / "viewer-laser.js").write_text("/* laser */\n", encoding="utf-8")
    (tmp_path / "livereload.js").write_text("/* served only while serving */\n", encoding="utf-8")
    bundle = viewer_bundle(tmp_path)
    assert "/* laser */" in bundle and "livereload" not in bundle
    assert bundle.index("/* viewer-core.js */") < bundle.index("/* laser */") < bundle.index("/* ranks.js */")
