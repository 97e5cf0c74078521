"""tracer/capture/file_reads.py: the project files a lecture reads while it runs are in its trace's
sources (hashed), so freshness sees them change; files it wrote, the tracer's own and installed
packages are not."""

from __future__ import annotations

import json
from pathlib import Path

from tracer.capture.runner import run_lecture

LECTURE = """\
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the course root (this string is the lecture's source)
sys.path.insert(0, str(ROOT))
import course_utils  # noqa: E402
import numpy  # noqa: E402,F401  (installed: never a source)


def main():
    text = (ROOT / "data" / "numbers.csv").read_text()
    total = sum(int(x) for x in text.split(",")) * course_utils.SCALE  # @inspect total
    with open(ROOT / "data" / "written.txt", "w") as out:
        out.write(str(total))
    again = (ROOT / "data" / "written.txt").read_text()  # written by the lecture: an output, not an input
"""


def make_course(root: Path, module: str = "course_utils") -> Path:
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (root / "lectures").mkdir()
    (root / "data").mkdir()
    (root / "data" / "numbers.csv").write_text("1,2,3", encoding="utf-8")
    (root / "data" / "unused.csv").write_text("9", encoding="utf-8")
    (root / f"{module}.py").write_text("SCALE = 10\n", encoding="utf-8")
    lecture = root / "lectures" / "reads.py"
    lecture.write_text(LECTURE.replace("course_utils", module), encoding="utf-8")
    return lecture


def test_files_read_and_modules_imported_from_the_project_are_sources(tmp_path):
    lecture = make_course(tmp_path)
    run_lecture(lecture, output=tmp_path / "site" / "traces" / "reads.json")
    trace = json.loads((tmp_path / "site" / "traces" / "reads.json").read_text(encoding="utf-8"))
    assert set(trace["sources"]) == {"lectures/reads.py", "data/numbers.csv", "course_utils.py"}
    assert [s["env"]["total"]["value"] for s in trace["steps"] if "total" in s["env"]] == [60]


def test_a_module_already_imported_by_an_earlier_run_is_still_a_source(tmp_path):
    lecture = make_course(tmp_path, "cached_utils")
    for name in ("first", "second"):  # the second run finds course_utils in sys.modules
        run_lecture(lecture, output=tmp_path / f"{name}.json")
    second = json.loads((tmp_path / "second.json").read_text(encoding="utf-8"))
    assert set(second["sources"]) == {"lectures/reads.py", "data/numbers.csv", "cached_utils.py"}


def test_an_editable_install_s_metadata_in_the_project_is_not_a_source(tmp_path):
    # `pip install -e .` writes NAME.egg-info/ into the project; a library that looks up entry points
    # reads it during the run. It is installed state, not something the lecture's author edits.
    lecture = make_course(tmp_path, "metadata_utils")
    for folder in ("scratch.egg-info", "scratch-0.1.dist-info"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "entry_points.txt").write_text("[console_scripts]\n", encoding="utf-8")
    lecture.write_text(
        lecture.read_text(encoding="utf-8").replace(
            "def main():\n",
            "def main():\n    for folder in ('scratch.egg-info', 'scratch-0.1.dist-info'):\n"
            "        (ROOT / folder / 'entry_points.txt').read_text()\n",
        ),
        encoding="utf-8",
    )
    run_lecture(lecture, output=tmp_path / "site" / "traces" / "reads.json")
    trace = json.loads((tmp_path / "site" / "traces" / "reads.json").read_text(encoding="utf-8"))
    assert set(trace["sources"]) == {"lectures/reads.py", "data/numbers.csv", "metadata_utils.py"}
