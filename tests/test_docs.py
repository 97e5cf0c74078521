"""The documents say what the repository holds: the module table lists every module of ``tracer``
and nothing else, each row the module's own docstring (generated, ``python3 tasks.py docs``), the
README opens with the commands CI runs, and every guide page is linked from the README."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers.module_table import asset_rows, generated_part, module_rows, tables

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "tracer"
GUIDE = REPO / "site" / "docs" / "guide"
MODULE_TABLE_PAGE = GUIDE / "extending.md"


def module_table(text: str) -> set[str]:
    """The module paths (relative to ``tracer/``) the module table's second column names."""
    table = text[text.index("| part | module | its job |") :].split("\n\n")[0]
    listed: set[str] = set()
    for row in table.splitlines()[2:]:
        cells = row.split("|")
        listed.update(name for name in re.findall(r"`([^`]+)`", cells[2]) if name.endswith(".py"))
    return listed


def holds_code(path: Path) -> bool:
    """A module with more than a docstring (a package's ``__init__.py`` that only describes it is left out)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return path.name != "__init__.py" or any(not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)) for n in body)


def package_modules() -> set[str]:
    return {
        p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if "course_template" not in p.parts and holds_code(p)
    }


def test_the_module_table_lists_every_module_and_no_other():
    listed = module_table(MODULE_TABLE_PAGE.read_text(encoding="utf-8"))
    modules = package_modules()
    assert sorted(modules - listed) == [], "modules missing from the module table in site/docs/guide/extending.md"
    assert sorted(listed - modules) == [], "the module table lists files that do not exist"


def test_the_module_table_check_sees_a_missing_row():
    # the reader must be able to fail: a table without one row misses exactly that module
    text = MODULE_TABLE_PAGE.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if "`capture/output_budget.py`" in line)
    assert package_modules() - module_table(text.replace(row + "\n", "")) == {"capture/output_budget.py"}


def test_the_module_tables_are_the_docstrings_and_header_comments():
    # The guide's tables are generated (python3 tasks.py docs): a module added, moved or renamed, or
    # a docstring or header comment reworded, without regenerating them, fails here.
    page = MODULE_TABLE_PAGE.read_text(encoding="utf-8")
    assert generated_part(page) == tables(), "run python3 tasks.py docs to regenerate the tables in extending.md"


def test_every_module_and_site_file_says_its_job():
    # a row with nothing to say: a module without a docstring, an asset without a header comment
    assert [path for _part, path, job in module_rows() if len(job) < 20] == []
    assets = asset_rows()
    assert {path.rsplit(".", 1)[-1] for path, _job in assets} == {"js", "css", "j2"}
    assert [path for path, job in assets if len(job) < 20] == []
    assert {"site/assets/viewer-core.js", "site/assets/viewer-keyboard.js", "site/assets/viewer-bar.js"} <= {p for p, _ in assets}


def test_the_generated_tables_follow_the_files(tmp_path):
    # the tables are made from the files: a new module's docstring is its row, and a reworded one changes it
    package = tmp_path / "tracer"
    (package / "site" / "assets").mkdir(parents=True)
    (package / "site" / "templates").mkdir()
    (package / "capture").mkdir()
    (package / "capture" / "clock.py").write_text('"""Wall time of a step, in ``seconds``.\n\nMore."""\nX = 1\n')
    (package / "capture" / "__init__.py").write_text('"""Only a docstring: not a row."""\n')
    (package / "site" / "assets" / "viewer-laser.js").write_text("/* chalktrace step mode, a laser pointer. Rules. */\n")
    text = tables(package)
    assert "| capture | `capture/clock.py` | Wall time of a step, in `seconds`. |" in text
    assert "| `site/assets/viewer-laser.js` | step mode, a laser pointer. |" in text
    assert "capture/__init__.py" not in text


def test_the_readme_opens_with_the_two_commands_and_ci_runs_the_test_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    opening = readme.split("```")[1].splitlines()
    assert opening[0] == "bash"
    assert [line.split("#")[0].strip() for line in opening[1:3]] == ["python3 tasks.py site", "python3 tasks.py test"]
    assert "python3 tasks.py test" in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_guide_page_is_linked_from_the_readme():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(REPO).as_posix() for p in GUIDE.glob("*.md"))
    assert len(pages) >= 4
    assert [p for p in pages if f"]({p})" not in readme] == []
