"""tracer/site/pages/viewer_data.py on traces made by the real tracer from tiny fixture lectures."""

from __future__ import annotations

import json
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env
from tracer.contract.files import write_atomic
from tracer.site.pages.packed_data import pack_viewer_data
from tracer.site.pages.viewer_data import SNAPSHOT_EVERY, build_viewer_data, navigation, reveal_steps, viewer_data_text
from helpers.traced import trace_all, trace_path, traced
from helpers.viewer_data import accumulated_env, card_html

NESTED = "tests/lectures/nested_calls.py"


@pytest.fixture(scope="module", autouse=True)
def _traces():
    trace_all("nested_calls", "viewer_loop", "site_basics", "site_error")


def viewer_data(name: str) -> tuple[dict, dict]:
    trace = traced(name)
    return trace, build_viewer_data(trace, HtmlRenderer(trace, template_env()))


@pytest.fixture(scope="module")
def nested():
    return viewer_data("nested_calls")


def step_at(data: dict, line: int, occurrence: int = 0, call: bool | None = None) -> int:
    """Index of the ``occurrence``-th step on ``line`` of the main file (optionally call steps only)."""
    s = data["steps"]
    found = [i for i in range(data["count"]) if s["line"][i] == line and (call is None or bool(s["call"][i]) == call)]
    return found[occurrence]


def names(data: dict, step: int) -> list[str]:
    return sorted(accumulated_env(data, step))


def card_of(data: dict, step: int, name: str) -> str:
    return card_html(data, accumulated_env(data, step)[name])


def test_steps_follow_the_trace(nested):
    trace, data = nested
    assert data["count"] == len(trace["steps"])
    s = data["steps"]
    for i, step in enumerate(trace["steps"]):
        frame = step["stack"][-1]
        assert data["files"][s["file"][i]]["path"] == frame["path"]
        assert s["line"][i] == frame["line"]
        assert data["functions"][s["fn"][i]] == frame["function"]
        assert s["depth"][i] == len(step["stack"]) - 1


def test_one_step_over_a_call_leaves_its_line(nested):
    _trace, data = nested
    s = data["steps"]
    call = step_at(data, 21, call=True)  # b = helper(a)
    completion = step_at(data, 21, call=False)  # the same line once helper returned (b's value)
    after = s["over"][call]
    # the next line, not the completion of this one (which would need a second press)
    assert s["line"][after] == 22 and s["depth"][after] == 0 and after == s["over"][completion]
    assert all(s["depth"][k] > 0 for k in range(call + 1, completion))  # everything skipped was inside helper
    assert s["back_over"][after] == completion  # back over: the line before, with its value
    assert s["back_over"][completion] == step_at(data, 20)  # and one more: past line 21's call step too
    # a call on the lecture's last line: no line follows, so over lands on its completion
    last = step_at(data, 29, call=True)  # e = twice(d)
    assert s["over"][last] == step_at(data, 29, call=False) and s["over"][s["over"][last]] == -1


def test_step_out_returns_to_the_caller_line(nested):
    _trace, data = nested
    s = data["steps"]
    square = step_at(data, 7)  # inside inner(), called from helper line 13
    out = s["out"][square]
    assert s["line"][out] == 13 and s["depth"][out] == 1 and not s["call"][out]
    out_of_helper = s["out"][out]
    assert s["line"][out_of_helper] == 21 and s["depth"][out_of_helper] == 0
    assert s["out"][out_of_helper] == -1  # nothing encloses main
    assert s["over"][data["count"] - 1] == -1 and s["next"][data["count"] - 1] == -1
    assert s["prev"][0] == -1 and s["back_over"][0] == -1


def test_callers_and_two_calls_on_one_line(nested):
    _trace, data = nested
    s = data["steps"]
    # c = helper(a) + helper(b): one call step per call, each the parent of its run of helper
    call, call_again = step_at(data, 22, 0, call=True), step_at(data, 22, 1, call=True)
    first, second = step_at(data, 12, 1), step_at(data, 12, 2)
    assert s["parent"][first] == call and s["parent"][second] == call_again
    assert s["act_prev"][first] == -1 and s["act_prev"][second] == -1
    assert s["over"][call] == step_at(data, 23)  # stepping over skips both calls and the line's completion
    assert s["back_over"][step_at(data, 22, call=False)] == step_at(data, 21, call=False)  # and back, both calls
    assert s["back_over"][call_again] == step_at(data, 21, call=False)
    assert names(data, second) == ["total"] and "0" in card_of(data, second, "total")
    assert s["parent"][step_at(data, 7, 1)] == step_at(data, 13, 1, call=True)
    assert s["parent"][call] == -1


def test_a_return_line_that_calls_stays_one_activation(nested):
    _trace, data = nested
    s = data["steps"]
    call, call_again = step_at(data, 33, 0, call=True), step_at(data, 33, 1, call=True)  # return inner(n) + inner(n)
    returned = step_at(data, 33, call=False)
    assert s["act_prev"][returned] == call_again
    assert s["over"][call] == step_at(data, 29, call=False)  # past the return line: back in the caller
    assert s["parent"][step_at(data, 7, 3)] == call and s["parent"][step_at(data, 7, 4)] == call_again
    assert s["act_prev"][step_at(data, 7, 4)] == -1  # inner's second run is a new activation
    assert "98" in card_of(data, s["out"][returned], "e")


def test_env_is_per_frame_and_accumulates(nested):
    _trace, data = nested
    assert names(data, step_at(data, 20)) == ["a"]
    assert names(data, step_at(data, 12)) == ["total"]  # helper's frame does not see main's a
    assert names(data, step_at(data, 7)) == ["square"]
    assert "5" in card_of(data, step_at(data, 14), "total")  # total replaced by the latest recording
    back_in_main = step_at(data, 21, call=False)
    assert names(data, back_in_main) == ["a", "b"] and "5" in card_of(data, back_in_main, "b")
    assert names(data, step_at(data, 22, call=False)) == ["a", "b", "c"]


def test_clear_removes_a_name_from_then_on(nested):
    _trace, data = nested
    cleared = step_at(data, 27)  # del b  # @clear b
    assert "b" in names(data, cleared - 1)
    assert names(data, cleared) == ["a", "c"]
    assert names(data, step_at(data, 28)) == ["a", "c", "d"]


def test_snapshots_give_the_same_env_as_replaying_every_step():
    trace, data = viewer_data("viewer_loop")
    assert len(data["snapshots"]) >= 200 // SNAPSHOT_EVERY  # main's activation is long enough to have many
    state: dict[str, int] = {}
    for i, step in enumerate(trace["steps"]):
        if len(step["stack"]) == 1:  # main's own steps (bump()'s frames have their own env)
            for name in step.get("clear", []):
                state.pop(name, None)
            state.update(dict(data["env"].get(str(i), [])))
            assert set(step["env"]) <= set(state)
        if len(step["stack"]) == 1:
            assert accumulated_env(data, i) == state, f"step {i}"
    last = data["count"] - 1
    assert names(data, last) == ["done", "i", "total"]  # twenty came and went
    assert "40" in card_of(data, last, "total")


def test_identical_cards_are_stored_once(nested):
    trace, data = nested
    zero_totals = [i for i, st in enumerate(trace["steps"]) if st["env"].get("total", {}).get("value") == 0]
    assert len(zero_totals) == 3
    cards = {dict(data["env"][str(i)])["total"] for i in zero_totals}
    assert len(cards) == 1
    recorded = sum(len(st["env"]) for st in trace["steps"])
    assert len(data["cards"]) < recorded


def test_sections_and_renderings(nested):
    _trace, data = nested
    assert data["sections"] == [[step_at(data, 19), "Setup"], [step_at(data, 23), "Loop"]]
    s = data["steps"]
    assert s["section"][0] == 0 and s["section"][step_at(data, 23) - 1] == 0 and s["section"][data["count"] - 1] == 1
    main_file = next(k for k, f in enumerate(data["files"]) if f["path"] == NESTED)
    runs = data["line_renderings"][main_file]["19"]
    assert [step for step, _blocks in runs] == [step_at(data, 19)]
    assert "Setup" in data["renderings"][runs[0][1][0]]
    assert data["files"][main_file]["spans"]["19"] == 19  # text("## Setup") shows as its rendering


def test_reveal_and_highlighted_lines(nested):
    trace, data = nested
    main_file = next(f for f in data["files"] if f["path"] == NESTED)
    assert len(main_file["lines"]) == len(trace["files"][NESTED].splitlines())
    assert "helper" in main_file["lines"][20]
    reveal = main_file["reveal"]
    assert reveal[0] == 0 and reveal[18] == 0  # everything above main's first line, from the start
    assert reveal[21] == step_at(data, 22)  # line 22 appears when it is first reached


def test_hidden_lines_are_skipped_by_navigation():
    trace, data = viewer_data("site_basics")
    s = data["steps"]
    path = trace["lecture"]["path"]
    (hidden_line,) = trace["hidden_lines"][path]
    hidden = [i for i in range(data["count"]) if s["line"][i] == hidden_line]
    assert hidden and all(not s["visible"][i] for i in hidden)
    before = hidden[0] - 1
    assert s["next"][before] == hidden[0] + 1 and s["over"][before] == hidden[0] + 1
    assert s["prev"][hidden[0] + 1] == before
    assert hidden_line in data["files"][s["file"][before]]["hidden"]


def test_errors_become_html():
    trace, data = viewer_data("site_error")
    (index,) = [i for i, st in enumerate(trace["steps"]) if st.get("error")]
    assert "ValueError" in data["errors"][str(index)] and "no &lt;good&gt;" in data["errors"][str(index)]


def test_navigation_on_synthetic_depths():
    depths = [0, 1, 2, 1, 1, 0, 1, 0]
    visible = [True, True, True, True, False, True, True, True]
    nav = navigation(depths, visible)
    assert nav["over"] == [5, 3, 3, 5, 5, 7, 7, -1]
    assert nav["out"] == [-1, 5, 3, 5, 5, -1, 7, -1]
    assert nav["back_over"] == [-1, 0, 1, 1, 3, 0, 5, 5]
    assert nav["next"] == [1, 2, 3, 5, 5, 6, 7, -1]
    assert nav["prev"] == [-1, 0, 1, 2, 3, 3, 5, 6]


def test_reveal_steps_follow_the_furthest_line():
    assert reveal_steps([(0, 5), (1, 3), (2, 8), (3, 6)], 10) == [0, 0, 0, 0, 0, 2, 2, 2, -1, -1]


def test_write_viewer_data(tmp_path, nested):
    trace, data = nested
    out = tmp_path / "lectures" / "nested_calls" / "data.js"
    write_atomic(out, viewer_data_text(trace, HtmlRenderer(trace, template_env())))
    text = out.read_text(encoding="utf-8")
    prefix = "window.CHALKTRACE_DATA = "
    assert text.startswith(prefix) and text.endswith(";\n")
    assert json.loads(text[len(prefix) : -2]) == json.loads(json.dumps(pack_viewer_data(data)))
    assert out.stat().st_mode & stat.S_IROTH  # a web server can read it
    assert len(text) < 2 * trace_path("nested_calls").stat().st_size
    assert [p.name for p in out.parent.iterdir()] == ["data.js"]  # no temp file left behind


def test_cards_reassemble_to_the_renderers_html():
    trace, data = viewer_data("site_basics")
    renderer = HtmlRenderer(trace, template_env())
    checked = 0
    for i, step in enumerate(trace["steps"]):
        for name, card in data["env"].get(str(i), []):
            assert card_html(data, card) == str(renderer.value(name, step["env"][name], step_index=i))
            checked += 1
    assert checked >= 5
    assert any("lt-kind-tensor" in card_html(data, card) for pairs in data["env"].values() for _n, card in pairs)


def test_rendering_only_lines_and_helper_renderings_in_step_mode():
    # authoring_site.py: 26 text("See"), link(KAPLAN); 27 named_link(...) renders in a helper module;
    # 28 params = 40000000000.0  # @inspect params
    trace, data = viewer_data("authoring_site")
    main = next(f for f in data["files"] if f["path"] == trace["lecture"]["path"])
    rendered = data["line_renderings"][data["files"].index(main)]
    assert main["spans"]["26"] == 26 and main["spans"]["27"] == 27 and "28" not in main["spans"]
    [[_step, [block]]] = rendered["26"]  # one paragraph, not two blocks
    assert data["renderings"][block].startswith('<p class="lt-para">See <span class="lt-cite">')
    [[_step, [block]]] = rendered["27"]  # the helper's link, at the line that called it
    assert 'href="https://einops.rocks"' in data["renderings"][block]
    line = main["lines"][27]  # line 28: the directive is kept for raw mode, wrapped for CSS to hide
    assert '<span class="lt-dir">' in line and "@inspect params" in line.split('<span class="lt-dir">')[1]


def test_values_named_on_a_def_line_stay_while_the_call_runs():
    trace = traced("def_line_values")
    data = build_viewer_data(trace, HtmlRenderer(trace, template_env()))
    steps = data["steps"]
    in_attention = [i for i in range(data["count"]) if data["functions"][steps["fn"][i]] == "attention"]
    lines = [steps["line"][i] for i in in_attention]
    assert lines == [6, 7, 8, 9, 10] * 2  # def line (entry), body, body, body, return: per call
    first, second = in_attention[:5], in_attention[5:]
    assert [names(data, i) for i in first] == [
        ["k", "q", "v"],
        ["k", "q", "scores", "v"],
        ["k", "q", "scores", "v"],
        ["q", "scores", "v"],
        ["q", "scores", "v"],
    ]
    assert names(data, second[0]) == ["k", "q", "v"] and "4" in card_of(data, second[2], "q")  # a new call: its own
    assert names(data, step_at(data, 16, call=False)) == ["a", "b"]


def _first(candidates) -> int:
    return next(iter(candidates), -1)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.booleans(), st.booleans(), st.integers(1, 3)), max_size=40))
def test_navigation_targets_follow_their_definitions_at_any_depth(steps):
    """Each key's target, stated directly (the nearest visible step that qualifies), for any depths."""
    depths = [d for d, _v, _c, _l in steps]
    visible = [v for _d, v, _c, _l in steps]
    calls = [c for _d, _v, c, _l in steps]
    places = [(0, line) for _d, _v, _c, line in steps]
    nav = navigation(depths, visible, calls, places)
    n = len(steps)

    def same_line(i: int, j: int) -> bool:
        return places[i] == places[j] and depths[i] == depths[j]

    for i, d in enumerate(depths):
        after = [j for j in range(i + 1, n) if visible[j]]
        before = [j for j in range(i - 1, -1, -1) if visible[j]]
        assert nav["next"][i] == _first(after)
        assert nav["prev"][i] == _first(before)
        over = _first(j for j in after if depths[j] <= d and not (calls[i] and calls[j]))
        if calls[i] and over != -1 and same_line(i, over):  # the line's own completion: one further, if any
            further = _first(j for j in after if j > over and depths[j] <= d)
            over = further if further != -1 else over
        assert nav["over"][i] == over
        assert nav["out"][i] == (_first(j for j in after if depths[j] < d) if d >= 1 else -1)
        back = [j for j in before if depths[j] <= d]
        others = [j for j in back if not (calls[j] and same_line(i, j))]  # past this line's own call steps
        assert nav["back_over"][i] == (others[0] if others else _first(reversed(back)))


def test_navigation_over_and_out_in_a_deep_recursion():
    # 1,000 calls down and back up: step over the first call lands after the last return
    depths = list(range(1000)) + list(range(999, -1, -1))
    nav = navigation(depths, [True] * len(depths), [False] * len(depths))
    assert nav["over"][0] == len(depths) - 1 and nav["out"][500] == 1000 + 999 - 499


def test_a_statement_over_several_lines_has_its_extent_for_the_speaker_views_next_line():
    trace = traced("def_line_values")
    trace["files"][trace["lecture"]["path"]] = (
        'def main():\n    text("""one\ntwo\n""")\n    for i in (\n        1, 2):\n        pass\n'
    )
    data = build_viewer_data(trace, HtmlRenderer(trace, template_env()))
    main = next(f for f in data["files"] if f["path"] == trace["lecture"]["path"])
    assert main["extents"] == {"2": 4, "5": 6}  # the whole text(...) call; the for loop's header only
