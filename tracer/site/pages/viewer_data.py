"""The step viewer's data: one lecture's trace turned into ``data.js`` for ``site/assets/viewer-*.js``.

``build_viewer_data(trace, renderer)`` returns plain, JSON-ready data designed so that every key
press in the browser is a few array lookups: HTML is rendered here once (a card per recorded value,
a block per rendering, highlighted lines per file, all de-duplicated), steps are stored column-wise,
and the navigation targets (step over / back over / out, the section, the frame's caller) are
precomputed. The variables panel shows the accumulated values of the current frame activation:
each step keeps only its own changes (``env``/``clear``), ``act_prev`` links a step to the previous
step of the same activation, and every ``SNAPSHOT_EVERY``-th step of an activation carries the whole
accumulated env, so the viewer replays at most that many diffs. ``-1`` means "none" in every index.
This module must not decide how anything looks (``tracer.site.cards.render`` renders) nor run lectures.

Layout of the returned dict (``version`` goes up on incompatible changes)::

    version, lecture {name, title, path}, count (steps), functions [name],
    files [{path, lines [html], hidden [line], spans {line: last line}, reveal [step per line],
            extents {line: last line}}]
      (``spans``: rendering-only statements that rendered, shown as their rendering, not code;
      ``extents``: every statement written over several lines, for showing one whole),
    fragments [html line], cards [[fragment]] (a card's HTML: its fragments joined by newlines),
    summaries [html or null] (per card: its one-line summary; null when the card is one line),
    renderings [html], sections [[step, title]],
    steps {file, line, fn, depth, parent, act_prev, next, prev, over, back_over, out, section, call, visible},
    env {step: [[name, card]]}, clear {step: [name]}, snapshots {step: [[name, card]]},
    line_renderings [{line: [[step, [rendering]]]} per file], stdout {step: text}, stderr {step: text},
    errors {step: html}, compute {step: html},
    quiz [{step, name, fact, prompt, answer, accept {kind, value, tolerance}, choices, reason, forced?}],
    has_speaker_notes (bool: the notes themselves are never in data.js; ``chalktrace present`` sends
    them to the presenter alone, from the notes file a build writes outside the site)
"""

from __future__ import annotations

import ast
import bisect
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2

from tracer.site.model.animate import animation_part
from tracer.site.model.line_records import step_shows_something
from tracer.site.model.page_model import is_rendering_only, rendering_statement, section_headings
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import strings_of, template_env
from tracer.site.pages import card_workers
from tracer.site.pages.packed_data import pack_viewer_data
from tracer.site.pages.quiz import choose_questions
from tracer.site.pages.rank_viewer import add_rank_data, lay_out_ranks
from tracer.contract import collector
from tracer.contract.source_facts import header_end, source_facts
from tracer.site.pages.speaker_notes import has_speaker_notes
from tracer.contract.trace_access import hidden_lines, source_text, step_frame
from tracer.contract.trace_format import Trace

DATA_VERSION = 2
SNAPSHOT_EVERY = 16  # a step's env is rebuilt from at most this many diffs


class _Interner:
    """Give equal HTML strings one index, so repeated cards/renderings are stored once."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[Any, int] = {}

    def add(self, item: Any) -> int:
        if item not in self._index:
            self._index[item] = len(self.items)
            self.items.append(item)
        return self._index[item]


class _CardStore:
    """Value cards as lists of line fragments: two cards of same-shaped tensors differ in a few lines
    (values, storage id) but share the big ones (stride diagram), which are then stored once."""

    def __init__(self) -> None:
        self.fragments = _Interner()
        self.cards = _Interner()
        self.summaries: list[str | None] = []  # per card: its one-line summary, or None (one line already)

    def add(self, html: str, summary: str | None = None) -> int:
        card = self.cards.add(tuple(self.fragments.add(part) for part in str(html).split("\n")))
        if card == len(self.summaries):
            self.summaries.append(None if summary is None else str(summary))
        return card


def _statement_info(source: str) -> tuple[dict[int, tuple[int, str]], dict[str, set[int]], set[int], set[int]]:
    """From source text: rendering-only candidates (start -> (end line, kind), see
    ``page_model.rendering_statement``), each function's first body lines (for spotting a new
    call), the lines of ``return`` statements, and the ``def`` lines (a ``def f(q):  # @inspect q``
    step opens the activation its body goes on with)."""
    facts = source_facts(source)
    spans: dict[int, tuple[int, str]] = {}
    first_lines: dict[str, set[int]] = {}
    def_lines: set[int] = set()
    for node in facts.stmts:
        kind = rendering_statement(node)
        if kind:
            spans[node.lineno] = (node.end_lineno or node.lineno, kind)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            def_lines.add(node.lineno)
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and len(body) > 1:
                body = body[1:]  # docstrings produce no line events
            # a loop header as first statement is revisited within one call, so it proves nothing
            if body and not isinstance(body[0], (ast.For, ast.AsyncFor, ast.While)):
                first_lines.setdefault(node.name, set()).add(body[0].lineno)
    return spans, first_lines, set(facts.returns), def_lines


def frame_activations(trace: Trace) -> tuple[list[int], list[int]]:
    """For each step: the step that called its frame (``parent``, -1 at the top) and the previous
    step of the same frame activation (``act_prev``, -1 at its first step).

    The trace has no frame ids, so a new activation at the same depth (``f(1) + f(2)`` on one line
    makes one call step, then two runs of ``f``) is recognised when the previous step of the frame
    was a completed ``return`` line, the function changed, or the step is the first body line of
    its function.
    """
    infos = {path: _statement_info(source) for path, source in trace["files"].items()}
    parent: list[int] = []
    act_prev: list[int] = []
    last_at_depth: list[int] = []  # the latest step seen at each depth of the current stack
    active: list[int] = []  # the parent step of the activation open at each depth
    steps = trace["steps"]
    for index, step in enumerate(steps):
        depth = len(step["stack"]) - 1
        frame = step_frame(step)
        del last_at_depth[depth + 1 :], active[depth + 1 :]
        previous = last_at_depth[depth] if depth < len(last_at_depth) else -1
        new = previous < 0
        if not new:
            before = step_frame(steps[previous])
            first_lines, _returns, def_lines = infos.get(frame["path"], ({}, {}, set(), set()))[1:]
            before_returns = infos.get(before["path"], ({}, {}, set(), set()))[2]
            new = (
                before["function"] != frame["function"]
                or before["path"] != frame["path"]
                or (before["line"] in before_returns and not steps[previous].get("call"))
                or (
                    frame["line"] in first_lines.get(frame["function"], ())
                    and before["line"] != frame["line"]
                    and before["line"] not in def_lines
                )  # the def line's entry step opened this call
                or frame["line"] in def_lines
            )  # an entry step (def f(q):  # @inspect q) opens one
        if new:
            caller = last_at_depth[depth - 1] if depth >= 1 and depth - 1 < len(last_at_depth) else -1
            while len(active) <= depth:
                active.append(-1)
            active[depth] = caller
            previous = -1
        while len(last_at_depth) <= depth:
            last_at_depth.append(-1)
        last_at_depth[depth] = index
        parent.append(active[depth] if depth < len(active) else -1)
        act_prev.append(previous)
    return parent, act_prev


def navigation(
    depths: list[int], visible: list[bool], calls: list[bool] | None = None, places: list[tuple[int, int]] | None = None
) -> dict[str, list[int]]:
    """Targets of each key among visible steps: next/prev, over/back_over (same or shallower
    depth), out (shallower, forward). -1 where there is none.

    Stepping over a "call" step goes past the line's completion, not to the same line's next
    call (``f(1) + f(2)`` has one call step per call). With ``places`` (each step's file and
    line), a press that would land on the same line of the same frame (a call line's completion
    going forward, its call steps going back) goes one target further, so one press leaves the
    line. Linear in the steps whatever their depth."""
    count = len(depths)
    calls = calls or [False] * count
    nav = {key: [-1] * count for key in ("next", "prev", "over", "back_over", "out")}
    # nearest visible step (in scan direction) with depth <= d, and the same among steps that are
    # not call steps: each a _Nearest (a stack of steps by depth, not a slot per depth per step)
    nearest, completed = _Nearest(), _Nearest()
    following = -1
    for i in range(count - 1, -1, -1):
        d = depths[i]
        nav["next"][i] = following
        over = completed.at_most(d) if calls[i] else nearest.at_most(d)
        if calls[i] and over != -1 and nav["over"][over] != -1 and _same_line(places, depths, i, over):
            over = nav["over"][over]  # the completion of this very line: the press would not move (kept at the end)
        nav["over"][i] = over
        nav["out"][i] = nearest.at_most(d - 1) if d >= 1 else -1
        if visible[i]:
            following = i
            nearest.add(d, i)
            if not calls[i]:
                completed.add(d, i)
    nearest = _Nearest()
    preceding = -1
    for i in range(count):
        d = depths[i]
        nav["prev"][i] = preceding
        back = nearest.at_most(d)
        while back != -1 and calls[back] and nav["back_over"][back] != -1 and _same_line(places, depths, i, back):
            back = nav["back_over"][back]  # past this very line's call steps: the press would not move
        nav["back_over"][i] = back
        if visible[i]:
            preceding = i
            nearest.add(d, i)
    return nav


def _same_line(places: list[tuple[int, int]] | None, depths: list[int], i: int, j: int) -> bool:
    return places is not None and places[i] == places[j] and depths[i] == depths[j]


class _Nearest:
    """The latest step added with depth at most d, for any d: a stack whose depths rise toward its
    top (a new step removes the entries at its depth or deeper, which it supersedes for every d)."""

    __slots__ = ("depths", "steps")

    def __init__(self) -> None:
        self.depths: list[int] = []
        self.steps: list[int] = []

    def add(self, depth: int, step: int) -> None:
        cut = bisect.bisect_left(self.depths, depth)
        del self.depths[cut:], self.steps[cut:]
        self.depths.append(depth)
        self.steps.append(step)

    def at_most(self, depth: int) -> int:
        k = bisect.bisect_right(self.depths, depth)
        return self.steps[k - 1] if k else -1


def statement_extents(source: str) -> dict[str, int]:
    """Each statement written over several lines: its first line -> its last (a compound
    statement's header only), so the speaker view can show a whole multi-line ``text(...)`` as next."""
    extents: dict[str, int] = {}
    for node in source_facts(source).stmts:
        end = header_end(node)
        if end > node.lineno:
            extents[str(node.lineno)] = end
    return extents


def reveal_steps(visits: list[tuple[int, int]], line_count: int) -> list[int]:
    """For each line (index 0 = line 1): the first step at which the furthest line reached in the
    file is at or below it, so presenting reveals the file top-down; -1 if never."""
    reveal = [-1] * line_count
    furthest = 0
    for step, line in visits:  # (step, line) in step order
        if line > furthest:
            for k in range(furthest, min(line, line_count)):
                reveal[k] = step
            furthest = line
    return reveal


def _file_paths(trace: Trace) -> list[str]:
    """Every file step mode shows: the trace's sources, then any other file a step ran in."""
    paths = list(trace["files"])
    seen = set(paths)
    # Every position is in the frame table once; walking each step's stack instead would cost the
    # steps times their depth (a deep recursion's page).
    frames: list[Any] = trace.get("frames") or [frame for step in trace["steps"] for frame in step["stack"]]
    for frame in frames:
        if frame["path"] not in seen:
            seen.add(frame["path"])
            paths.append(frame["path"])
    return paths


@dataclass
class _StepPlaces:
    """Where each step is (column-wise), the functions it names, and each file's visits in step order."""

    columns: dict[str, list[int]]  # file, line, fn, depth, call, visible
    functions: list[str]
    visits: list[list[tuple[int, int]]]  # per file: (step, line)
    hidden: dict[str, set[int]]  # per path: the @hide lines


def _step_places(trace: Trace, paths: list[str]) -> _StepPlaces:
    file_index = {path: k for k, path in enumerate(paths)}
    function_index: dict[str, int] = {}
    where = _StepPlaces(
        {key: [] for key in ("file", "line", "fn", "depth", "call", "visible")},
        [],
        [[] for _ in paths],
        {path: hidden_lines(trace, path) for path in paths},
    )
    columns = where.columns
    for index, step in enumerate(trace["steps"]):
        frame = step_frame(step)
        f = file_index[frame["path"]]
        if frame["function"] not in function_index:
            function_index[frame["function"]] = len(where.functions)
            where.functions.append(frame["function"])
        columns["file"].append(f)
        columns["line"].append(frame["line"])
        columns["fn"].append(function_index[frame["function"]])
        columns["depth"].append(len(step["stack"]) - 1)
        columns["call"].append(1 if step.get("call") else 0)
        columns["visible"].append(0 if frame["line"] in where.hidden.get(frame["path"], ()) else 1)
        where.visits[f].append((index, frame["line"]))
    return where


@dataclass
class _StepContents:
    """What the steps show, keyed by step (as a string): the cards and renderings HTML, interned."""

    cards: _CardStore
    renderings: _Interner
    env: dict[str, list[list[Any]]] = field(default_factory=dict)
    clear: dict[str, list[str]] = field(default_factory=dict)
    stdout: dict[str, str] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    compute: dict[str, str] = field(default_factory=dict)
    line_renderings: list[dict[str, list[list[Any]]]] = field(default_factory=list)  # per file
    recorded_other: list[set[int]] = field(default_factory=list)  # per file: lines that showed something


def _shown_values(env: dict[str, Any]) -> dict[str, Any]:
    """A step's values as the variables panel shows them: an ``@inspect`` that named nothing there
    (a "missing" record, kept in the trace for check) is the page's one warning, not a card too."""
    return {name: value for name, value in env.items() if value.get("type") != "missing"}


_Cards = list[list[tuple[str, str, str | None]]]  # per step: (name, card HTML, summary) per shown value


def _render_cards(steps: Sequence[int], renderer: Any, trace: Trace) -> tuple[_Cards, dict[str, bytes]]:
    """The value cards of ``steps`` (each one's shown values), and the heatmaps drawn for them: run
    by ``card_workers`` in this process or in a worker, whose renderer's side effects stay there."""
    kept = renderer.heatmaps
    drawn: dict[str, bytes] = {}
    renderer.heatmaps = drawn
    try:
        cards = [
            [
                (name, str(renderer.value(name, value, step_index=index)), _text_or_none(renderer.summary(name, value)))
                for name, value in _shown_values(trace["steps"][index]["env"]).items()
            ]
            for index in steps
        ]
    finally:
        renderer.heatmaps = kept
    return cards, drawn


def _text_or_none(html: Any) -> str | None:
    return None if html is None else str(html)


def _worker_renderer(trace: Trace, templates: str, catalogue: Any) -> tuple[Any, Trace]:
    """In a card worker: a renderer like the build's (same trace, templates and language)."""
    return HtmlRenderer(trace, template_env(templates, catalogue)), trace


def _value_cards(trace: Trace, renderer: Any) -> dict[int, list[tuple[str, str, str | None]]]:
    """Every step's value cards, rendered in worker processes when there are many (``card_workers``);
    the heatmaps they draw are added to ``renderer.heatmaps`` in the order drawing them here would."""
    steps = [index for index, step in enumerate(trace["steps"]) if _shown_values(step["env"])]
    loader = renderer.env.loader
    if (
        type(renderer) is HtmlRenderer  # one a worker can make again: templates from a folder, and a catalogue
        and isinstance(loader, jinja2.FileSystemLoader)
        and len(loader.searchpath) == 1
        and "catalogue" in renderer.env.globals
    ):
        recipe = (trace, loader.searchpath[0], renderer.env.globals["catalogue"])
        chunks = card_workers.map_chunks(_render_cards, steps, here=(renderer, trace), setup=_worker_renderer, setup_args=recipe)
    else:
        chunks = [_render_cards(steps, renderer, trace)]
    cards: dict[int, list[tuple[str, str, str | None]]] = {}
    for chunk, drawn in chunks:
        renderer.heatmaps.update(drawn)
        cards.update(zip(steps[len(cards) :], chunk))
    return cards


def _step_contents(trace: Trace, paths: list[str], renderer: Any) -> _StepContents:
    file_index = {path: k for k, path in enumerate(paths)}
    main = trace["lecture"]["path"]
    shown = _StepContents(_CardStore(), _Interner(), line_renderings=[{} for _ in paths], recorded_other=[set() for _ in paths])
    built: list[int] = []  # the blocks shown so far by the @animate line being stepped through
    value_cards = _value_cards(trace, renderer)
    for index, step in enumerate(trace["steps"]):
        frame = step_frame(step)
        f = file_index[frame["path"]]
        key = str(index)
        if index in value_cards:
            shown.env[key] = [[name, shown.cards.add(html, summary)] for name, html, summary in value_cards[index]]
        if step.get("clear"):
            shown.clear[key] = list(step["clear"])
        if step.get("stdout"):
            shown.stdout[key] = step["stdout"]
        if step.get("stderr"):
            shown.stderr[key] = step["stderr"]
        if step.get("error"):
            shown.errors[key] = str(renderer.error(step["error"]))
        if step.get("compute"):
            shown.compute[key] = str(renderer.compute(step["compute"]))
        if step_shows_something(step):
            shown.recorded_other[f].add(frame["line"])
        if step["renderings"]:
            blocks = [shown.renderings.add(str(html)) for html in renderer.rendering_blocks(step["renderings"])]
            part = animation_part(step)
            if part is not None and part[0] > 1:  # an @animate line: its renderings build up, part by part
                blocks = built + blocks
            built = blocks
            shown.line_renderings[f].setdefault(str(frame["line"]), []).append([index, blocks])
            if frame["path"] != main:
                # as in read mode, a helper's renderings also show at the lecture line that called it
                caller = next((c for c in reversed(step["stack"]) if c["path"] == main), None)
                if caller is not None:
                    shown.line_renderings[file_index[main]].setdefault(str(caller["line"]), []).append([index, blocks])
    return shown


def _sections(trace: Trace) -> tuple[list[list[Any]], list[int]]:
    """The sections ([step, title] per heading) and, for each step, the section it is in (-1 before any)."""
    sections: list[list[Any]] = [[step, title] for step, title in section_headings(trace)]
    section_of: list[int] = []
    current = -1
    for index in range(len(trace["steps"])):
        while current + 1 < len(sections) and sections[current + 1][0] <= index:
            current += 1
        section_of.append(current)
    return sections, section_of


def _file_entry(trace: Trace, path: str, f: int, renderer: Any, where: _StepPlaces, shown: _StepContents) -> dict[str, Any]:
    """One file of ``files``: its highlighted lines, hidden lines, rendering-only spans and reveal steps."""
    lines = [str(html) for html in renderer.code_lines(path, directives="wrap")]  # raw mode shows directives
    spans = _statement_info(source_text(trace, path))[0]
    rendered = shown.line_renderings[f]
    return {
        "path": path,
        "lines": lines,
        "hidden": sorted(where.hidden.get(path, ())),
        "spans": {
            str(line): end
            for line, (end, kind) in spans.items()
            if is_rendering_only(kind, str(line) in rendered, line in shown.recorded_other[f])
        },
        "reveal": reveal_steps(where.visits[f], len(lines)),
        "extents": statement_extents(source_text(trace, path)),
    }


def build_viewer_data(trace: Trace, renderer: Any) -> dict[str, Any]:
    """The plain data behind ``data.js`` (see the module docstring for its layout)."""
    if trace.get("ranks"):  # a distributed trace: one timeline per rank (tracer/site/pages/rank_viewer.py)
        laid_out = lay_out_ranks(trace, renderer)
        data = build_viewer_data(laid_out.trace, laid_out.renderer)
        add_rank_data(data, trace, laid_out, renderer)
        return data
    steps = trace["steps"]
    paths = _file_paths(trace)
    where = _step_places(trace, paths)
    shown = _step_contents(trace, paths, renderer)
    parent, act_prev = frame_activations(trace)
    nav = navigation(
        where.columns["depth"],
        [bool(v) for v in where.columns["visible"]],
        [bool(c) for c in where.columns["call"]],
        list(zip(where.columns["file"], where.columns["line"], strict=True)),
    )
    snapshots = _snapshots(len(steps), act_prev, shown.env, shown.clear)
    sections, section_of = _sections(trace)
    files = [_file_entry(trace, path, f, renderer, where, shown) for f, path in enumerate(paths)]

    return {
        "version": DATA_VERSION,
        "lecture": {key: trace["lecture"][key] for key in ("name", "title", "path")},
        "count": len(steps),
        "functions": where.functions,
        "files": files,
        "fragments": shown.cards.fragments.items,
        "cards": [list(card) for card in shown.cards.cards.items],
        "summaries": shown.cards.summaries,
        "renderings": shown.renderings.items,
        "sections": sections,
        "steps": {**where.columns, "parent": parent, "act_prev": act_prev, **nav, "section": section_of},
        "env": shown.env,
        "clear": shown.clear,
        "snapshots": snapshots,
        "line_renderings": shown.line_renderings,
        "stdout": shown.stdout,
        "stderr": shown.stderr,
        "errors": shown.errors,
        "compute": shown.compute,
        "quiz": choose_questions(trace, strings_of(renderer.env)),  # quiz mode's questions (tracer/site/pages/quiz.py)
        # Whether the speaker view has notes to ask `chalktrace present` for; never their text, which
        # data.js would publish to every student (tracer/site/pages/speaker_notes.py writes them apart).
        "has_speaker_notes": has_speaker_notes(trace),
    }


def _snapshots(
    count: int, act_prev: list[int], env: dict[str, list[list[Any]]], clear: dict[str, list[str]]
) -> dict[str, list[list[Any]]]:
    """The accumulated env at every SNAPSHOT_EVERY-th step of each activation."""
    accumulated: dict[int, dict[str, int]] = {}  # step -> env after it, only kept for activation heads
    position = [0] * count
    snapshots: dict[str, list[list[Any]]] = {}
    for index in range(count):
        before = act_prev[index]
        # carry the running env forward along the activation, dropping the previous step's copy
        state = accumulated.pop(before, {}) if before >= 0 else {}
        position[index] = position[before] + 1 if before >= 0 else 0
        for name in clear.get(str(index), ()):
            state.pop(name, None)
        for name, card in env.get(str(index), ()):
            state[name] = card
        accumulated[index] = state
        if position[index] and position[index] % SNAPSHOT_EVERY == 0 and state:
            snapshots[str(index)] = [[name, card] for name, card in state.items()]
    return snapshots


def viewer_data_text(trace: Trace, renderer: Any, title: str | None = None) -> str:
    """The text of ``data.js`` (``window.CHALKTRACE_DATA = {...};``); ``title`` replaces the
    lecture's own in step mode's header (a kept GPU run names its GPU there)."""
    # a long lecture's cards are hundreds of thousands of lists and strings, made and packed here:
    # the collector's passes over them find little (Jinja's contexts), freed in one pass at the end
    with collector.paused(collect_after=True):
        data = build_viewer_data(trace, renderer)
        if title is not None:
            data["lecture"]["title"] = title
        packed = pack_viewer_data(data)  # what the page loads: steps delta-coded, cards as skeletons and numbers
    return "window.CHALKTRACE_DATA = " + json.dumps(packed, ensure_ascii=False, separators=(",", ":")) + ";\n"
