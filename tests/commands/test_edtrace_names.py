from tracer.commands.edtrace_names import unported_names

SOURCE = """import edtrace
import edtrace.execute
from edtrace import text, pop_renderings
from edtrace.file_util import download_file, cached
from execute_util import link, Rendering
from edtrace import file_util as fu
import edtrace.file_util as fileutil
def main():
    edtrace.text("x"); edtrace.frobnicate(); fu.relativize("a"); fileutil.download_file("u", "f")
    text("ok"), link("ok"), download_file("u", "f")
"""


def test_each_unserved_name_with_its_file_and_line():
    assert unported_names("lectures/x.py", SOURCE) == [
        "lectures/x.py:2: module edtrace.execute has no chalktrace equivalent yet",
        "lectures/x.py:3: edtrace.pop_renderings has no chalktrace equivalent yet",
        "lectures/x.py:4: edtrace.file_util.cached has no chalktrace equivalent yet",
        "lectures/x.py:5: execute_util.Rendering has no chalktrace equivalent yet",
        "lectures/x.py:9: edtrace.file_util.relativize has no chalktrace equivalent yet",
        "lectures/x.py:9: edtrace.frobnicate has no chalktrace equivalent yet",
    ]


def test_served_names_and_other_modules_are_fine():
    assert unported_names("a.py", "from edtrace import *\nfrom tracer import text\nimport edtrace_other\n") == []
    assert unported_names("a.py", "def broken(:\n") == []


def test_check_lists_them_for_every_file_of_the_course(tmp_path):
    from tracer.commands import check

    lectures = tmp_path / "lectures"
    lectures.mkdir()
    (lectures / "lecture_a.py").write_text("from edtrace import text\n\n\ndef main():\n    text('fine')\n")
    (lectures / "lecture_util.py").write_text("import edtrace\n\n\ndef helper():\n    edtrace.pop_renderings()\n")
    assert check.unported_uses(tmp_path, lectures) == [
        "lectures/lecture_util.py:5: edtrace.pop_renderings has no chalktrace equivalent yet"
    ]
