"""Quiz questions, one per fact a trace records: the question, its recorded answer, the ``accept``
spec the viewer's parser checks typed answers against, up to four choices (the answer and plausible
wrong ones) and, where the trace can tell, a one-line reason.

``fact_question`` asks about a value (stride, view or copy, dtype, broadcast, reshape, matmul),
``reduction_question`` about a reduction's shape, ``flops_question`` and ``bytes_question`` about an
``@flops`` line and a collective. Which steps ask which question is ``quiz.choose_questions``'s
choice. This module must not render HTML nor choose steps; it only reads the values it is given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tracer.contract.trace_format import Collective, Compute
from tracer.site.cards.units import shape_text

MAX_CHOICES = 4
DEFAULT_ELEMENT_NBYTES = 4  # float32, what torch makes when no dtype is given

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


def make_question(
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


def ints_question(
    step: int, name: str, fact: str, prompt: str, answer: list[int], wrong: list[list[int]], reason: str | None
) -> Question:
    return make_question(
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


def number_question(
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
    return make_question(
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


def bool_question(step: int, name: str, fact: str, prompt: str, answer: bool, reason: str | None) -> Question:
    return make_question(
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
        return bool_question(step, name, fact, f"Does {name} share storage with {other_name}?", shared, reason)
    if fact == "shape" and (tensor or kind == "ndarray"):
        shape = value["shape"]
        wrong = [shape[::-1]]
        if source is not None and source.get("shape") != shape:
            wrong.insert(0, source["shape"])
        return ints_question(step, name, fact, f"What is {name}.shape?", shape, wrong, None)
    if fact in ("shape", "value") and kind == "size":
        return ints_question(step, name, "shape", f"What is {name}?", value["value"], [value["value"][::-1]], None)
    if fact == "dtype" and (tensor or kind in ("ndarray", "numpy_scalar")):
        dtype = value["dtype"]
        wrong_dtypes = [d for d in ("float32", "float16", "bfloat16", "float64", "int64") if d != dtype]
        if source is not None and source.get("dtype") not in (None, dtype):
            wrong_dtypes.insert(0, source["dtype"])
        return make_question(
            step, name, fact, f"What is {name}.dtype?", "dtype", dtype, dtype, [(d, d) for d in wrong_dtypes], None
        )
    if not tensor:
        if fact == "value" and kind in ("int", "float", "bool"):
            number = value["value"]
            if kind == "bool":
                return bool_question(step, name, fact, f"What is {name}?", bool(number), None)
            if not isinstance(number, (int, float)):  # "nan", "inf"
                return None
            wrong = [number * 2, number / 2] if number else [1]
            tolerance = 0.0 if kind == "int" else 1e-3
            return number_question(step, name, fact, f"What is {name}?", number, wrong, "", None, tolerance)
        return None
    numel, element_nbytes = value["numel"], value["element_size"]
    if fact == "stride":
        stride = value["stride"]
        wrong = [stride[::-1], contiguous_stride(value["shape"])]
        if source is not None:
            wrong.append(source["stride"])
        return ints_question(step, name, fact, f"What is {name}.stride()?", stride, wrong, stride_reason(value, source))
    if fact == "offset":
        offset = value["storage_offset"]
        return number_question(
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
        return bool_question(step, name, fact, f"Is {name} contiguous?", value["contiguous"], reason)
    if fact == "numel":
        return number_question(
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
        return number_question(
            step, name, fact, f"How many bytes does {name} hold (nbytes)?", value["nbytes"], wrong, "B", reason
        )
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
    return number_question(step, "", "flops", "How many FLOPs does this line do?", flops, wrong, "FLOPs", reason, 0.01)


def bytes_question(step: int, collective: Collective) -> Question:
    sent, payload, group = collective["sent_nbytes"], collective["nbytes"], collective["group_size"]
    reason = (
        f"{collective['algorithm']} {collective['op']} of {payload:,} bytes over {group} ranks: each rank sends {sent:,} bytes"
    )
    wrong = [payload, payload * group, payload * 2]
    return number_question(
        step, "", "bytes", f"How many bytes does this rank send in {collective['op']}?", sent, wrong, "B", reason, 0.01
    )


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
    return ints_question(step, name, "shape", f"What is {name}.shape?", shape, wrong, reason)
