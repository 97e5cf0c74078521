"""Line records and the one "shows something" test (tracer/site/model/line_records.py)."""

from __future__ import annotations

from helpers.traced import traced

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.templates import template_env
from tracer.site.model.line_records import (
    LineRecord,
    collect_lines,
    document_lines,
    rank_line_shows_something,
    step_shows_something,
)
from tracer.site.model.page_model import Annotation, CodeBlock, build_document
from tracer.site.model.rank_model import rank_lines
from tracer.site.pages.viewer_data import build_viewer_data


def bare_step(**parts):
    return {
        "stack": [{"path": "lectures/x.py", "line": 1, "function": "main"}],
        "env": {},
        "renderings": [],
        "stdout": "",
        **parts,
    }


def test_what_counts_as_showing_something():
    assert not step_shows_something(bare_step(renderings=[{"type": "markdown", "data": "prose"}]))
    assert step_shows_something(bare_step(env={"x": {"type": "int", "value": 1}}))
    assert step_shows_something(bare_step(stderr="warned\n"))  # stderr alone counts, as stdout does
    assert step_shows_something(bare_step(stdout="hi\n"))
    assert step_shows_something(bare_step(error={"type": "ValueError", "message": "no"}))
    record = LineRecord(line=3, first_step=0, renderings=[(0, {"type": "markdown", "data": "prose"})])
    assert not record.shows_something() and record.annotated()  # renderings follow, but record nothing
    record.stderr = "warned\n"
    assert record.shows_something()
    assert not LineRecord(line=3, first_step=0).annotated()


def test_a_ranks_collective_alone_shows_and_lands_on_its_line_record():
    trace = traced("ranks_allreduce")
    lines = rank_lines(trace)
    reduce = next(line for line, rank_line in lines.items() if rank_line.collectives)
    lines[reduce].env.clear()
    assert rank_line_shows_something(lines[reduce])  # the collective alone is worth showing
    records = document_lines(trace)
    assert records[reduce].ranks is not None and records[reduce].ranks.collectives
    assert set(collect_lines(trace)) < set(records)  # lines only rank code ran became records too


def rendering_only_lines(trace):
    """Read mode: lines that show as their renderings (an annotation with no code line of its own)."""
    blocks = build_document(trace)
    code = {c.line for b in blocks if isinstance(b, CodeBlock) for c in b.lines}
    return {b.record.line for b in blocks if isinstance(b, Annotation)} - code


def test_read_mode_and_step_mode_agree_on_which_lines_show_as_their_renderings():
    for name in ("authoring_site", "renderings_demo", "site_basics"):
        trace = traced(name)
        main = trace["lecture"]["path"]
        data = build_viewer_data(trace, HtmlRenderer(trace, template_env()))
        [files] = [f for f in data["files"] if f["path"] == main]
        spans = {int(line) for line in files["spans"]}
        assert spans and rendering_only_lines(trace) == spans, name


def test_a_rendering_helper_that_also_printed_shows_its_code_in_both_modes():
    trace = traced("authoring_site")
    main = trace["lecture"]["path"]
    line = next(
        number for number, text in enumerate(trace["files"][main].splitlines(), 1) if text.strip().startswith("named_link(")
    )
    assert line in rendering_only_lines(trace)
    done = max(
        k
        for k, s in enumerate(trace["steps"])
        if (s["stack"][-1]["path"], s["stack"][-1]["line"]) == (main, line) and not s.get("call")
    )
    trace["steps"][done]["stdout"] = "linked\n"  # the wrapper printed too: its code shows, then the output
    data = build_viewer_data(trace, HtmlRenderer(trace, template_env()))
    [files] = [f for f in data["files"] if f["path"] == main]
    assert line not in rendering_only_lines(trace) and str(line) not in files["spans"]
