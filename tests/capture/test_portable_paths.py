"""tracer/capture/portable_paths.py: environment paths in captured text are written the same on every machine."""

from __future__ import annotations

import json
import sysconfig
import textwrap
from pathlib import Path

from tracer.capture.portable_paths import library_name, replacements, scrubber
from tracer.capture.runner import run_lecture


def test_the_most_specific_place_wins():
    table = {
        "/p/": "",
        "/p/.venv/lib/python3.11/site-packages/": "<site-packages>/",
        "/usr/lib/python3.11/": "<stdlib>/",
        "/home/u/": "<home>/",
    }
    scrub = scrubber(table)
    text = (
        "/p/.venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:83: FutureWarning\n"
        '  File "/usr/lib/python3.11/json/decoder.py", line 3 in /p/lectures/a.py and /home/u/data.csv'
    )
    assert scrub(text) == (
        "<site-packages>/torch/distributed/c10d_logger.py:83: FutureWarning\n"
        '  File "<stdlib>/json/decoder.py", line 3 in lectures/a.py and <home>/data.csv'
    )


def test_a_place_itself_and_every_occurrence_are_portable():
    scrub = scrubber({"/home/u/course/": "", "/home/u/": "<home>/"})
    assert scrub("/home/u/course") == "."
    assert scrub("/home/u") == "<home>"
    assert scrub("cwd=/home/u/course home='/home/u'") == "cwd=. home='<home>'"
    assert scrub("['/home/u/course', '/home/u/course']") == "['.', '.']"
    assert scrub("/home/u/course/a.py:/home/u/course/b.py /home/u/course") == "a.py:b.py ."
    assert scrub("/home/u/course/a.py /home/u/course") == "a.py ."  # under it, then itself
    # a sibling that only starts like the place is not the place
    assert scrub("/home/u/course2/a.py and /home/u/coursework") == "<home>/course2/a.py and <home>/coursework"


def test_this_interpreter_s_places_are_known(tmp_path):
    table = replacements(tmp_path)
    assert table[str(tmp_path) + "/"] == ""
    assert table[sysconfig.get_paths()["stdlib"].rstrip("/") + "/"] == "<stdlib>/"
    assert table[sysconfig.get_paths()["purelib"].rstrip("/") + "/"] == "<site-packages>/"
    assert library_name("<site-packages>/torch/distributed/x.py") == "torch"
    assert library_name("<stdlib>/json/decoder.py") == "json" and library_name("lectures/a.py") is None


def test_a_library_warning_names_the_lecture_line_not_the_install_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    lecture = tmp_path / "lectures" / "warns.py"
    lecture.write_text(
        textwrap.dedent("""\
        import json, warnings, traceback


        def main():
            data = json.loads("[1]")
            warnings.warn_explicit("old API", DeprecationWarning, json.__file__, 7)
            warnings.warn("my own", UserWarning)
            try:
                json.loads("{")
            except ValueError:
                shown = traceback.format_exc()  # @inspect shown
        """),
        encoding="utf-8",
    )
    out = tmp_path / "warns.json"
    run_lecture(lecture, output=out)
    trace = json.loads(out.read_text(encoding="utf-8"))
    stderr = "".join(step.get("stderr", "") for step in trace["steps"])
    assert "lectures/warns.py:6: DeprecationWarning: old API (from json)\n" in stderr
    assert "lectures/warns.py:7: UserWarning: my own\n" in stderr
    shown = [step["env"]["shown"]["value"] for step in trace["steps"] if "shown" in step["env"]][0]
    assert 'File "lectures/warns.py", line 9, in main' in shown and 'File "<stdlib>/json/' in shown
    assert str(tmp_path) not in out.read_text(encoding="utf-8") and str(Path.home()) + "/" not in out.read_text(encoding="utf-8")
