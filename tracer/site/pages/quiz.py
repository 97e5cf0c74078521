"""Quiz mode's questions: which steps ask the student to predict a value before step mode shows it.

``choose_questions(trace)`` reads a trace (values, ``@flops`` counts, collectives, and the traced
source for ``@ask``/``@noask`` comments) and returns plain question records for ``data.js``; the
viewer (``assets/viewer-quiz.js``) asks them and checks typed answers with its own lenient parser, which
reads the ``accept`` spec built here. A question sits on the step that first shows a value, and is
chosen for what it teaches:

* a stride that changed: a view of an earlier tensor whose strides are not a fresh tensor's
  (transpose, permute, expand, a column);
* a view against a copy: does the new tensor share the storage of the tensor its line read?
* a dtype that changed bytes: a tensor whose element size differs from the tensor it came from, or
  from the float32 default when made directly;
* a reduction that changed shape (``sum``, ``mean``, ``reduce``, ...) and a broadcast (operands of
  different shapes);
* the FLOPs of an ``@flops`` line and the bytes a collective sends per rank.

At most one automatic question per screenful: two are at least :data:`MIN_GAP_STEPS` steps apart
(the higher priority, then the earlier, wins). A section (a ``##``/``###`` heading) that gets no such
question asks one memory question (``nbytes``) of its first new tensor, if the gap allows. ``@ask``
forces its questions (they are always kept, and automatic ones keep the gap from them); ``@noask``
drops the automatic ones of its line. Each question carries the recorded answer, an ``accept`` spec
(kind: ``ints``, ``number``, ``dtype`` or ``bool``; ``tolerance`` relative, for numbers), up to four
choices (the answer and plausible wrong ones: strides swapped, element size wrong, the shape before
the reduction) and, where the trace can tell, a one-line reason (``quiz_questions`` builds each one).
This module must not render HTML nor run lectures; it only reads the trace.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

from tracer.contract.source_facts import Ask, parse_ask, parse_directive_comment, source_facts
from tracer.contract.trace_access import hidden_lines, step_frame
from tracer.contract.trace_format import Step, Trace
from tracer.site.cards.interface_strings import Catalogue, load
from tracer.site.cards.units import shape_text
from tracer.site.pages.quiz_questions import (
    Question,
    broadcast_shape,
    contiguous_stride,
    fact_question,
    flops_question,
    bytes_question,
    ints_question,
    reduction_question,
)

MIN_GAP_STEPS = 15  # about one screenful of code lines: at most one automatic question per 15 steps
_REDUCTIONS = re.compile(
    r"\b(sum|mean|max|min|amax|amin|prod|norm|argmax|argmin|std|var|logsumexp|any|all|"
    r"count_nonzero|reduce|median|mode)\b"
)
_MATMUL = re.compile(r"@|\b(matmul|mm|bmm|einsum)\b")
_CAST = re.compile(r"\.(to|type|half|float|double|bfloat16|int|long|bool)\(|\bdtype\s*=")
_RESHAPE = re.compile(r"\.(reshape|view)\(")
_DEFAULT_DTYPES = ("float32", "int64", "bool")
_PRIORITY = {
    "flops": 6,
    "bytes": 6,
    "stride": 5,
    "dtype": 5,
    "reduction": 5,
    "view": 5,
    "broadcast": 4,
    "reshape": 4,
    "copy": 3,
    "matmul": 3,
}


# --- automatic choice ------------------------------------------------------------------------------


def _names_read(node: ast.stmt | None) -> tuple[list[str], list[str]]:
    """(names the statement assigns, names its right-hand side reads), in source order."""
    if node is None:
        return [], []
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        assigned = [t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)]
        value = node.value
        read = [n.id for n in ast.walk(value) if isinstance(n, ast.Name)] if value is not None else []
        return assigned, list(dict.fromkeys(read))
    return [], []


def auto_candidates(
    step: int,
    name: str,
    value: dict[str, Any],
    operands: list[tuple[str, dict[str, Any]]],
    statement: str,
    words: Catalogue | None = None,
) -> list[tuple[str, Question]]:
    """(rule, question) for a tensor first shown at ``step``; ``operands`` are the earlier tensors
    its line reads (name, value), ``statement`` the line's code; ``words`` the course's catalogue."""
    w = words or load()
    found: list[tuple[str, Question]] = []
    reason: str | None
    shared = [(n, v) for n, v in operands if v["storage_id"] == value["storage_id"] and n != name]
    fresh = value["stride"] == contiguous_stride(value["shape"])
    for other_name, other in shared[:1]:
        source = dict(other, _name=other_name)
        if not fresh and value["numel"] > 1:
            question = fact_question(step, name, "stride", value, source=source, words=w)
            if question:
                found.append(("stride", question))
        question = fact_question(step, name, "shares", value, other=other, other_name=other_name, words=w)
        if question:
            found.append(("view", question))
    same_numel = [(n, v) for n, v in operands if v["numel"] == value["numel"] and n != name]
    if not shared and len(operands) == 1 and same_numel and same_numel[0][1]["storage_id"] != value["storage_id"]:
        other_name, other = same_numel[0]
        if other["element_size"] == value["element_size"]:
            question = fact_question(step, name, "shares", value, other=other, other_name=other_name, words=w)
            if question:
                found.append(("copy", question))
    sized = [(n, v) for n, v in same_numel if v["element_size"] != value["element_size"]]
    if sized and _CAST.search(statement):
        question = fact_question(step, name, "nbytes", value, source=sized[0][1], words=w)
        if question:
            found.append(("dtype", question))
    elif not operands and value["dtype"] not in _DEFAULT_DTYPES and value["numel"] > 0:
        question = fact_question(step, name, "nbytes", value, words=w)
        if question:
            found.append(("dtype", question))
    if not shared and fresh and len(value["shape"]) >= 2 and _RESHAPE.search(statement):
        reason = w.text("quiz.reason.row_major", stride=shape_text(value["stride"]))
        question = ints_question(
            step,
            name,
            "stride",
            w.text("quiz.stride", name=name),
            value["stride"],
            [value["stride"][::-1], [1] * len(value["shape"]), value["shape"]],
            reason,
        )
        found.append(("reshape", question))
    bigger = [(n, v) for n, v in operands if v["numel"] > value["numel"]]
    if bigger and _REDUCTIONS.search(statement):
        found.append(("reduction", reduction_question(step, name, value, bigger[0][0], bigger[0][1], w)))
    shapes = [v["shape"] for _n, v in operands]
    if len({tuple(s) for s in shapes}) > 1 and broadcast_shape(shapes) == value["shape"] and not _MATMUL.search(statement):
        reason = w.text(
            "quiz.reason.broadcast",
            shapes=w.text("quiz.and").join(shape_text(s) for s in shapes),
            shape=shape_text(value["shape"]),
        )
        question = ints_question(step, name, "shape", w.text("quiz.shape", name=name), value["shape"], shapes, reason)
        found.append(("broadcast", question))
    elif len(operands) >= 2 and _MATMUL.search(statement):
        reason = None
        if all(len(s) >= 2 for s in shapes):
            reason = w.text("quiz.reason.matmul_shape")
        elif not value["shape"]:
            reason = w.text("quiz.reason.dot")
        question = ints_question(step, name, "shape", w.text("quiz.shape", name=name), value["shape"], shapes, reason)
        found.append(("matmul", question))
    return found


def ask_directives(source: str) -> dict[int, tuple[list[Ask], bool]]:
    """Statement start line -> (its ``@ask`` questions, whether it says ``@noask``)."""
    found: dict[int, tuple[list[Ask], bool]] = {}
    if "@ask" not in source and "@noask" not in source:
        return found
    owner = source_facts(source).owner
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        directives, _unknown = parse_directive_comment(token.string)
        if "ask" not in directives and "noask" not in directives:
            continue
        start = owner.get(token.start[0], token.start[0])
        asks, noask = found.get(start, ([], False))
        found[start] = (asks + parse_ask(directives.get("ask", []))[0], noask or "noask" in directives)
    return found


def _sections(trace: Trace) -> list[int]:
    """First step of each ``##``/``###`` heading, in step order."""
    starts = set()
    for index, step in enumerate(trace["steps"]):
        for rendering in step["renderings"]:
            if rendering.get("type") == "markdown" and re.search(r"^###? ", rendering.get("data", ""), re.M):
                starts.add(index)
    return sorted(starts)


def choose_questions(trace: Trace, words: Catalogue | None = None) -> list[Question]:
    """Quiz mode's questions for a trace, in step order (see the module docstring for the rules), in
    the words of ``words`` (the course's catalogue; English by default)."""
    words = words or load()
    steps = trace["steps"]
    asks = {path: ask_directives(source) for path, source in trace["files"].items()}
    hidden = {path: hidden_lines(trace, path) for path in trace["files"]}
    latest: dict[str, dict[str, Any]] = {}  # name -> its latest recorded value
    seen: set[tuple[str, int, str]] = set()
    asked_lines: set[tuple[str, int]] = set()
    statements: dict[tuple[str, int], tuple[list[str], list[str], str]] = {}  # (path, line) -> assigned, read, code
    lines = {path: source.splitlines() for path, source in trace["files"].items()}
    forced: list[Question] = []
    candidates: list[tuple[int, int, Question]] = []  # (priority, step, question)
    fallback: list[Question] = []  # first new tensors, for sections without a question
    for index, step in enumerate(steps):
        frame = step_frame(step)
        path, line = frame["path"], frame["line"]
        if line in hidden.get(path, ()):
            continue
        source = trace["files"].get(path, "")
        spec = asks.get(path, {}).get(line)
        env = step["env"]
        if spec and spec[0] and (path, line) not in asked_lines:
            made = [q for q in (_forced(index, ask, env, latest, step, words) for ask in spec[0]) if q]
            if made:
                asked_lines.add((path, line))
                forced.append(made[0])
        if not (spec and spec[1]):
            new = [
                (name, value) for name, value in env.items() if value.get("type") == "tensor" and (path, line, name) not in seen
            ]
            if new:
                if (path, line) not in statements:
                    node = source_facts(source).statements.get(line) if source else None
                    code = lines[path][node.lineno - 1 : node.end_lineno or node.lineno] if node is not None else []
                    statements[(path, line)] = (*_names_read(node), "\n".join(code))
                assigned, read, statement = statements[(path, line)]
                operands = [(n, latest[n]) for n in read if latest.get(n, {}).get("type") == "tensor"]
            for name, value in new:
                if name not in assigned:
                    continue
                seen.add((path, line, name))
                for rule, question in auto_candidates(index, name, value, operands, statement, words):
                    candidates.append((_PRIORITY[rule], index, question))
                if not operands and value["numel"] > 0:
                    memory = fact_question(index, name, "nbytes", value, words=words)
                    if memory:
                        fallback.append(memory)
            if step.get("compute") and (path, line, "@flops") not in seen:
                seen.add((path, line, "@flops"))
                candidates.append((_PRIORITY["flops"], index, flops_question(index, step["compute"], words)))
            if step.get("collectives") and (path, line, "@bytes") not in seen:
                seen.add((path, line, "@bytes"))
                moving = [c for c in step["collectives"] if c["sent_nbytes"] > 0]
                if moving:
                    candidates.append((_PRIORITY["bytes"], index, bytes_question(index, moving[0], words)))
        for name, value in env.items():
            latest[name] = value
    chosen = {q["step"]: q for q in forced}

    def fits(at: int) -> bool:
        return all(abs(at - other) >= MIN_GAP_STEPS for other in chosen)

    for _priority, at, question in sorted(candidates, key=lambda c: (-c[0], c[1])):
        if fits(at):
            chosen[at] = question
    sections = _sections(trace) + [len(steps)]
    for start, end in zip(sections, sections[1:]):
        if any(start <= at < end for at in chosen):
            continue
        for question in fallback:
            if start <= question["step"] < end and fits(question["step"]):
                chosen[question["step"]] = question
                break
    return [chosen[at] for at in sorted(chosen)]


def _forced(
    index: int, ask: Ask, env: dict[str, Any], latest: dict[str, dict[str, Any]], step: Step, words: Catalogue
) -> Question | None:
    """The question an ``@ask`` asks on this step, or None when the step does not record its answer."""
    if ask.fact == "flops":
        return flops_question(index, step["compute"], words) if step.get("compute") else None
    if ask.fact == "bytes":
        moving = [c for c in step.get("collectives", []) if c["sent_nbytes"] > 0]
        return bytes_question(index, moving[0], words) if moving else None
    value = env.get(ask.name)
    if value is None:
        return None
    other = env.get(ask.other) or latest.get(ask.other) if ask.other else None
    question = fact_question(index, ask.name, ask.fact, value, other=other, other_name=ask.other, words=words)
    if question is not None:
        question["forced"] = True
    return question
