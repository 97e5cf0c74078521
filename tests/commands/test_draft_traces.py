"""tracer/commands/draft_traces.py: the error-only trace ``serve`` publishes for a lecture saved with a syntax error."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers.projects import make_project
from tracer.commands.draft_traces import DraftTraces, syntax_error_trace
from tracer.commands.retrace_status import RetraceStatus
from tracer.commands.run_protocol import RunOutcome
from tracer.contract.trace_reading import load_trace

GOOD = 'from tracer import text\n\n\ndef main():\n    text("# Drafts")\n    x = 1\n'
BROKEN = 'from tracer import text\n\n\ndef main():\n    text("# Drafts")\n    x = (1,\n    y = 2\n'


def test_a_syntax_error_gets_one_valid_step_at_its_line_and_the_saved_source(tmp_path):
    root = make_project(tmp_path, {"demo.py": BROKEN})
    lecture = root / "lectures" / "demo.py"
    trace = syntax_error_trace(lecture, root)
    assert trace is not None
    written = tmp_path / "draft.json"
    written.write_text(json.dumps(trace), encoding="utf-8")
    loaded = load_trace(written)  # the trace contract's validation: a page renders it as any trace
    assert loaded["status"] == "error" and loaded["files"] == {"lectures/demo.py": BROKEN}
    [step] = loaded["steps"]
    assert step["stack"] == [{"path": "lectures/demo.py", "line": 6, "function": "<module>"}]
    assert step["error"]["type"] == "SyntaxError" and step["error"]["message"] == "'(' was never closed"
    assert syntax_error_trace(lecture.with_name("missing.py"), root) is None


def test_publish_leaves_the_committed_trace_and_withdraws_on_the_fix(tmp_path):
    root = make_project(tmp_path, {"demo.py": GOOD})
    lecture = root / "lectures" / "demo.py"
    subprocess.run([sys.executable, "-m", "tracer", "run", "lectures/demo.py"], cwd=root, check=True, capture_output=True)
    committed = root / "site" / "traces" / "demo.json"
    environment = json.loads(committed.read_text(encoding="utf-8"))["environment"]
    before = committed.read_bytes()
    drafts = DraftTraces(root / "build" / "draft-traces")
    assert not drafts.publish(lecture, root, committed)  # it parses: no draft
    lecture.write_text(BROKEN, encoding="utf-8")
    assert drafts.publish(lecture, root, committed)
    draft = drafts.directory / "demo.json"
    shown = json.loads(draft.read_text(encoding="utf-8"))
    assert shown["lecture"]["title"] == "Drafts" and shown["environment"] == environment
    stamp = draft.stat().st_mtime_ns
    assert drafts.publish(lecture, root, committed) and draft.stat().st_mtime_ns == stamp  # unchanged: not rewritten
    assert committed.read_bytes() == before
    lecture.write_text(GOOD, encoding="utf-8")
    assert not drafts.publish(lecture, root, committed) and not draft.exists()
    lecture.write_text(BROKEN, encoding="utf-8")
    drafts.publish(lecture, root, committed)
    DraftTraces(drafts.directory)  # a new serve starts with none
    assert not draft.exists() and drafts.directory.is_dir()


def test_a_deleted_lecture_s_draft_is_withdrawn(tmp_path):
    root = make_project(tmp_path, {"demo.py": BROKEN, "other.py": BROKEN})
    drafts = DraftTraces(root / "build" / "draft-traces")
    lectures = [root / "lectures" / "demo.py", root / "lectures" / "other.py"]
    for lecture in lectures:
        assert drafts.publish(lecture, root, root / "site" / "traces" / f"{lecture.stem}.json")
    lectures[1].unlink()  # serve's next build: demo fails again, other is gone
    status = RetraceStatus(root / "build" / "retrace-status.json", drafts, root)
    status.traced_here([RunOutcome(lectures[0], 2, 0.1, "lectures/demo.py:6: SyntaxError: '(' was never closed")], lectures[:1])
    assert sorted(p.name for p in drafts.directory.iterdir()) == ["demo.json"]
    assert json.loads(status.path.read_text(encoding="utf-8"))["demo"]["message"].endswith("'(' was never closed")
