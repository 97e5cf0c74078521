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
the reduction) and, where the trace can tell, a one-line reason. This module must not render HTML
nor run lectures; it only reads the trace.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Sequence
from typing import Any

from tracer.contract.source_facts import Ask, parse_ask, parse_directive_comment, source_facts
from tracer.contract.trace_access import hidden_lines, step_frame
from tracer.contract.trace_format import Collective, Compute, Step, Trace
from tracer.site.cards.units import shape_text

MIN_GAP_STEPS = 15  # about one screenful of code lines: at most one automatic question per 15 steps
MAX_CHOICES = 4
DEFAULT_ELEMENT_NBYTES = 4  # float32, what torch makes when no dtype is given
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

Question = dict[str, Any]


# --- answers as the student types them -----------------------------------------------------------


def number_text(value: float, unit: str = "") -> str:
    """A number as the feedback shows it: ``33,554,432``, ``1.5e-05`` kept short, plus a unit."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    text = f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
    return text + (" " + unit if unit else "")


def contiguous_stride(shape: list[int]) -> list[int]:
    """The strides of a fresh (row-major) tensor of ``shape``."""
    stride, step = [], 1
    for size in reversed(shape):
        stride.append(step)
        step *= max(size, 1)
    return stride[::-1]


def broadcast_shape(shapes: list[list[int]]) -> list[int] | None:
    """The shape broadcasting gives, or None when the shapes do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for k in range(ndim):
        sizes = {s[len(s) - ndim + k] for s in shapes if len(s) - ndim + k >= 0} - {1}
        if len(sizes) > 1:
            return None
        result.append(sizes.pop() if sizes else 1)
    return result


def _question(
    step: int,
    name: str,
    fact: str,
    prompt: str,
    kind: str,
    answer: Any,
    display: str,
    wrong: list[tuple[Any, str]],
    reason: str | None,
    tolerance: float = 0.0,
) -> Question:
    """A question record; ``wrong`` are (value, display) distractors, deduplicated against the answer."""
    choices = [display]
    for _value, text in wrong:
        if text not in choices and len(choices) < MAX_CHOICES:
            choices.append(text)
    if len(choices) > 1:  # the answer's place varies from question to question, deterministically
        turn = step % len(choices)
        choices = choices[turn:] + choices[:turn]
    return {
        "step": step,
        "name": name,
        "fact": fact,
        "prompt": prompt,
        "answer": display,
        "accept": {"kind": kind, "value": answer, "tolerance": tolerance},
        "choices": choices if len(choices) > 1 else [],
        "reason": reason,
    }


def _ints(
    step: int, name: str, fact: str, prompt: str, answer: list[int], wrong: list[list[int]], reason: str | None
) -> Question:
    return _question(
        step,
        name,
        fact,
        prompt,
        "ints",
        list(answer),
        shape_text(answer),
        [(w, shape_text(w)) for w in wrong if list(w) != list(answer)],
        reason,
    )


def _number(
    step: int,
    name: str,
    fact: str,
    prompt: str,
    answer: float,
    wrong: Sequence[float],
    unit: str,
    reason: str | None,
    tolerance: float = 0.0,
) -> Question:
    return _question(
        step,
        name,
        fact,
        prompt,
        "number",
        answer,
        number_text(answer, unit),
        [(w, number_text(w, unit)) for w in wrong if w != answer and w > 0],
        reason,
        tolerance,
    )


def _bool(step: int, name: str, fact: str, prompt: str, answer: bool, reason: str | None) -> Question:
    return _question(
        step, name, fact, prompt, "bool", answer, "yes" if answer else "no", [(not answer, "no" if answer else "yes")], reason
    )


# --- one question per fact ------------------------------------------------------------------------


def stride_reason(value: dict[str, Any], source: dict[str, Any] | None) -> str | None:
    """Why a view has the strides it has, when the trace can tell."""
    stride = value["stride"]
    if 0 in stride:
        return "expand repeats elements with stride 0; no data is copied"
    if source is not None and sorted(stride) == sorted(source["stride"]) and stride != source["stride"]:
        if len(stride) == 2 or sum(a != b for a, b in zip(stride, source["stride"])) == 2:
            return "transpose swaps the strides; no data moves"
        return "permute reorders the strides; no data moves"
    if source is not None:
        return f"a view of the same storage as {source.get('_name', 'its source')}: new strides, no data moves"
    return None


def fact_question(
    step: int,
    name: str,
    fact: str,
    value: dict[str, Any],
    *,
    source: dict[str, Any] | None = None,
    other: dict[str, Any] | None = None,
    other_name: str = "",
) -> Question | None:
    """The question about one fact of a recorded value (None when the value has no such fact).

    ``source`` is the tensor the value came from (for distractors and reasons), ``other`` the
    earlier tensor of a ``shares`` question."""
    kind = value.get("type")
    tensor = kind == "tensor"
    reason: str | None
    if fact == "":
        fact = "shape" if tensor or kind == "ndarray" else "value"
    if fact == "shares":
        if not tensor or other is None or other.get("type") != "tensor":
            return None
        shared = value["storage_id"] == other["storage_id"]
        if shared:
            reason = (
                f"{name} is a view: the same storage as {other_name}, offset {value['storage_offset']}, "
                f"strides {shape_text(value['stride'])}; no data moves"
            )
        else:
            reason = f"{name} has its own storage: a copy, {value['nbytes']:,} bytes of new memory"
        return _bool(step, name, fact, f"Does {name} share storage with {other_name}?", shared, reason)
    if fact == "shape" and (tensor or kind == "ndarray"):
        shape = value["shape"]
        wrong = [shape[::-1]]
        if source is not None and source.get("shape") != shape:
            wrong.insert(0, source["shape"])
        return _ints(step, name, fact, f"What is {name}.shape?", shape, wrong, None)
    if fact in ("shape", "value") and kind == "size":
        return _ints(step, name, "shape", f"What is {name}?", value["value"], [value["value"][::-1]], None)
    if fact == "dtype" and (tensor or kind in ("ndarray", "numpy_scalar")):
        dtype = value["dtype"]
        wrong_dtypes = [d for d in ("float32", "float16", "bfloat16", "float64", "int64") if d != dtype]
        if source is not None and source.get("dtype") not in (None, dtype):
            wrong_dtypes.insert(0, source["dtype"])
        return _question(step, name, fact, f"What is {name}.dtype?", "dtype", dtype, dtype, [(d, d) for d in wrong_dtypes], None)
    if not tensor:
        if fact == "value" and kind in ("int", "float", "bool"):
            number = value["value"]
            if kind == "bool":
                return _bool(step, name, fact, f"What is {name}?", bool(number), None)
            if not isinstance(number, (int, float)):  # "nan", "inf"
                return None
            wrong = [number * 2, number / 2] if number else [1]
            tolerance = 0.0 if kind == "int" else 1e-3
            return _number(step, name, fact, f"What is {name}?", number, wrong, "", None, tolerance)
        return None
    numel, element_nbytes = value["numel"], value["element_size"]
    if fact == "stride":
        stride = value["stride"]
        wrong = [stride[::-1], contiguous_stride(value["shape"])]
        if source is not None:
            wrong.append(source["stride"])
        return _ints(step, name, fact, f"What is {name}.stride()?", stride, wrong, stride_reason(value, source))
    if fact == "offset":
        offset = value["storage_offset"]
        return _number(
            step,
            name,
            fact,
            f"What is {name}.storage_offset()?",
            offset,
            [offset + 1, offset * 2 if offset else 1, offset * element_nbytes],
            "",
            None,
        )
    if fact == "contiguous":
        reason = (
            None
            if value["contiguous"]
            else (
                f"its strides {shape_text(value['stride'])} are not a fresh tensor's "
                f"{shape_text(contiguous_stride(value['shape']))}"
            )
        )
        return _bool(step, name, fact, f"Is {name} contiguous?", value["contiguous"], reason)
    if fact == "numel":
        return _number(
            step,
            name,
            fact,
            f"How many elements does {name} have?",
            numel,
            [numel * element_nbytes, sum(value["shape"])],
            "",
            f"numel is the product of the shape {shape_text(value['shape'])}",
        )
    if fact == "nbytes":
        other_sizes = [DEFAULT_ELEMENT_NBYTES if element_nbytes != DEFAULT_ELEMENT_NBYTES else 2, 8]
        if source is not None and source["element_size"] != element_nbytes:
            other_sizes.insert(0, source["element_size"])
        wrong = [numel * size for size in other_sizes if size != element_nbytes] + [numel]
        reason = f"{numel:,} elements × {element_nbytes} bytes ({value['dtype']}) = {value['nbytes']:,} bytes"
        if source is not None and source["element_size"] != element_nbytes:
            reason += f"; {source['dtype']} took {source['element_size']} bytes per element"
        return _number(step, name, fact, f"How many bytes does {name} hold (nbytes)?", value["nbytes"], wrong, "B", reason)
    return None


def flops_question(step: int, compute: Compute) -> Question:
    flops = compute["flops"]
    ops = " ".join(compute.get("by_op") or {})
    if flops == 0:
        reason = "torch's FLOP counter counts only matmul-like operations; elementwise ones count 0"
    elif re.search(r"\b(mm|matmul|addmm|bmm|baddbmm|linear|convolution)\b", ops.replace("aten.", "")):
        reason = "a matmul costs 2 FLOPs (a multiply and an add) per (i, j, k) triple: 2·m·n·k"
    else:
        reason = "counted by torch's FLOP counter: " + ops
    wrong = [flops / 2, flops * 2, flops * 4] if flops else [1.0, 2.0]
    return _number(step, "", "flops", "How many FLOPs does this line do?", flops, wrong, "FLOPs", reason, 0.01)


def bytes_question(step: int, collective: Collective) -> Question:
    sent, payload, group = collective["sent_nbytes"], collective["nbytes"], collective["group_size"]
    reason = (
        f"{collective['algorithm']} {collective['op']} of {payload:,} bytes over {group} ranks: each rank sends {sent:,} bytes"
    )
    wrong = [payload, payload * group, payload * 2]
    return _number(
        step, "", "bytes", f"How many bytes does this rank send in {collective['op']}?", sent, wrong, "B", reason, 0.01
    )


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
    step: int, name: str, value: dict[str, Any], operands: list[tuple[str, dict[str, Any]]], statement: str
) -> list[tuple[str, Question]]:
    """(rule, question) for a tensor first shown at ``step``; ``operands`` are the earlier tensors
    its line reads (name, value), ``statement`` the line's code."""
    found: list[tuple[str, Question]] = []
    reason: str | None
    shared = [(n, v) for n, v in operands if v["storage_id"] == value["storage_id"] and n != name]
    fresh = value["stride"] == contiguous_stride(value["shape"])
    for other_name, other in shared[:1]:
        source = dict(other, _name=other_name)
        if not fresh and value["numel"] > 1:
            question = fact_question(step, name, "stride", value, source=source)
            if question:
                found.append(("stride", question))
        question = fact_question(step, name, "shares", value, other=other, other_name=other_name)
        if question:
            found.append(("view", question))
    same_numel = [(n, v) for n, v in operands if v["numel"] == value["numel"] and n != name]
    if not shared and len(operands) == 1 and same_numel and same_numel[0][1]["storage_id"] != value["storage_id"]:
        other_name, other = same_numel[0]
        if other["element_size"] == value["element_size"]:
            question = fact_question(step, name, "shares", value, other=other, other_name=other_name)
            if question:
                found.append(("copy", question))
    sized = [(n, v) for n, v in same_numel if v["element_size"] != value["element_size"]]
    if sized and _CAST.search(statement):
        question = fact_question(step, name, "nbytes", value, source=sized[0][1])
        if question:
            found.append(("dtype", question))
    elif not operands and value["dtype"] not in _DEFAULT_DTYPES and value["numel"] > 0:
        question = fact_question(step, name, "nbytes", value)
        if question:
            found.append(("dtype", question))
    if not shared and fresh and len(value["shape"]) >= 2 and _RESHAPE.search(statement):
        reason = "row-major: the last dim has stride 1, each earlier one the product of the sizes after it: " + shape_text(
            value["stride"]
        )
        question = _ints(
            step,
            name,
            "stride",
            f"What is {name}.stride()?",
            value["stride"],
            [value["stride"][::-1], [1] * len(value["shape"]), value["shape"]],
            reason,
        )
        found.append(("reshape", question))
    bigger = [(n, v) for n, v in operands if v["numel"] > value["numel"]]
    if bigger and _REDUCTIONS.search(statement):
        found.append(("reduction", reduction_question(step, name, value, bigger[0][0], bigger[0][1])))
    shapes = [v["shape"] for _n, v in operands]
    if len({tuple(s) for s in shapes}) > 1 and broadcast_shape(shapes) == value["shape"] and not _MATMUL.search(statement):
        reason = (
            "broadcasting lines shapes up from the right; a size-1 or missing dim stretches: "
            + " and ".join(shape_text(s) for s in shapes)
            + " → "
            + shape_text(value["shape"])
        )
        question = _ints(step, name, "shape", f"What is {name}.shape?", value["shape"], shapes, reason)
        found.append(("broadcast", question))
    elif len(operands) >= 2 and _MATMUL.search(statement):
        reason = None
        if all(len(s) >= 2 for s in shapes):
            reason = "a matmul of (…, m, k) by (k, n) gives (…, m, n): the shared k is summed away"
        elif not value["shape"]:
            reason = "a matmul of two vectors is their dot product: a scalar, shape ()"
        question = _ints(step, name, "shape", f"What is {name}.shape?", value["shape"], shapes, reason)
        found.append(("matmul", question))
    return found


def reduction_question(step: int, name: str, value: dict[str, Any], source_name: str, source: dict[str, Any]) -> Question:
    shape, before = value["shape"], source["shape"]
    reason = None
    wrong = [before]
    for k in range(len(before)):
        removed = before[:k] + before[k + 1 :]
        kept = before[:k] + [1] + before[k + 1 :]
        if removed == shape:
            reason = f"reducing over dim {k} removes it (keepdim=True would keep it as 1)"
            wrong.append(kept)
        elif kept == shape and len(before) == len(shape):
            reason = f"keepdim keeps the reduced dim {k} as size 1"
            wrong.append(removed)
    if len(before) >= 2:
        wrong.append(before[1:])
    if reason is None:
        reason = f"the reduction collapses {source_name}'s {shape_text(before)} to {shape_text(shape)}"
    return _ints(step, name, "shape", f"What is {name}.shape?", shape, wrong, reason)


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


def choose_questions(trace: Trace) -> list[Question]:
    """Quiz mode's questions for a trace, in step order (see the module docstring for the rules)."""
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
            made = [q for q in (_forced(index, ask, env, latest, step) for ask in spec[0]) if q]
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
                for rule, question in auto_candidates(index, name, value, operands, statement):
                    candidates.append((_PRIORITY[rule], index, question))
                if not operands and value["numel"] > 0:
                    memory = fact_question(index, name, "nbytes", value)
                    if memory:
                        fallback.append(memory)
            if step.get("compute") and (path, line, "@flops") not in seen:
                seen.add((path, line, "@flops"))
                candidates.append((_PRIORITY["flops"], index, flops_question(index, step["compute"])))
            if step.get("collectives") and (path, line, "@bytes") not in seen:
                seen.add((path, line, "@bytes"))
                moving = [c for c in step["collectives"] if c["sent_nbytes"] > 0]
                if moving:
                    candidates.append((_PRIORITY["bytes"], index, bytes_question(index, moving[0])))
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


def _forced(index: int, ask: Ask, env: dict[str, Any], latest: dict[str, dict[str, Any]], step: Step) -> Question | None:
    """The question an ``@ask`` asks on this step, or None when the step does not record its answer."""
    if ask.fact == "flops":
        return flops_question(index, step["compute"]) if step.get("compute") else None
    if ask.fact == "bytes":
        moving = [c for c in step.get("collectives", []) if c["sent_nbytes"] > 0]
        return bytes_question(index, moving[0]) if moving else None
    value = env.get(ask.name)
    if value is None:
        return None
    other = env.get(ask.other) or latest.get(ask.other) if ask.other else None
    question = fact_question(index, ask.name, ask.fact, value, other=other, other_name=ask.other)
    if question is not None:
        question["forced"] = True
    return question
