"""Quiz questions, one per fact a trace records: the question, its recorded answer, the ``accept``
spec the viewer's parser checks typed answers against, up to four choices (the answer and plausible
wrong ones) and, where the trace can tell, a one-line reason.

``fact_question`` asks about a value (stride, view or copy, dtype, broadcast, reshape, matmul),
``reduction_question`` about a reduction's shape, ``flops_question`` and ``bytes_question`` about an
``@flops`` line and a collective. The words of questions and reasons come from the course's catalogue
(``words``, English by default). Which steps ask which question is ``quiz.choose_questions``'s
choice. This module must not render HTML nor choose steps; it only reads the values it is given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tracer.contract.trace_format import Collective, Compute
from tracer.site.cards.interface_strings import Catalogue, load
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


def bool_question(
    step: int, name: str, fact: str, prompt: str, answer: bool, reason: str | None, words: Catalogue | None = None
) -> Question:
    yes, no = (words or load()).text("quiz.yes"), (words or load()).text("quiz.no")
    return make_question(
        step, name, fact, prompt, "bool", answer, yes if answer else no, [(not answer, no if answer else yes)], reason
    )


# --- one question per fact ------------------------------------------------------------------------


def stride_reason(value: dict[str, Any], source: dict[str, Any] | None, words: Catalogue | None = None) -> str | None:
    """Why a view has the strides it has, when the trace can tell."""
    w = words or load()
    stride = value["stride"]
    if 0 in stride:
        return w.text("quiz.reason.expand")
    if source is not None and sorted(stride) == sorted(source["stride"]) and stride != source["stride"]:
        if len(stride) == 2 or sum(a != b for a, b in zip(stride, source["stride"])) == 2:
            return w.text("quiz.reason.transpose")
        return w.text("quiz.reason.permute")
    if source is not None and "_name" in source:
        return w.text("quiz.reason.view_of", source=source["_name"])
    if source is not None:
        return w.text("quiz.reason.view_of_source")
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
    words: Catalogue | None = None,
) -> Question | None:
    """The question about one fact of a recorded value (None when the value has no such fact).

    ``source`` is the tensor the value came from (for distractors and reasons), ``other`` the
    earlier tensor of a ``shares`` question."""
    w = words or load()
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
            offset, stride = value["storage_offset"], shape_text(value["stride"])
            reason = w.text("quiz.reason.view", name=name, other=other_name, offset=offset, stride=stride)
        else:
            reason = w.text("quiz.reason.copy", name=name, nbytes=f"{value['nbytes']:,}")
        return bool_question(step, name, fact, w.text("quiz.shares", name=name, other=other_name), shared, reason, w)
    if fact == "shape" and (tensor or kind == "ndarray"):
        shape = value["shape"]
        wrong = [shape[::-1]]
        if source is not None and source.get("shape") != shape:
            wrong.insert(0, source["shape"])
        return ints_question(step, name, fact, w.text("quiz.shape", name=name), shape, wrong, None)
    if fact in ("shape", "value") and kind == "size":
        return ints_question(step, name, "shape", w.text("quiz.value", name=name), value["value"], [value["value"][::-1]], None)
    if fact == "dtype" and (tensor or kind in ("ndarray", "numpy_scalar")):
        dtype = value["dtype"]
        wrong_dtypes = [d for d in ("float32", "float16", "bfloat16", "float64", "int64") if d != dtype]
        if source is not None and source.get("dtype") not in (None, dtype):
            wrong_dtypes.insert(0, source["dtype"])
        return make_question(
            step, name, fact, w.text("quiz.dtype", name=name), "dtype", dtype, dtype, [(d, d) for d in wrong_dtypes], None
        )
    if not tensor:
        if fact == "value" and kind in ("int", "float", "bool"):
            number = value["value"]
            if kind == "bool":
                return bool_question(step, name, fact, w.text("quiz.value", name=name), bool(number), None, w)
            if not isinstance(number, (int, float)):  # "nan", "inf"
                return None
            wrong = [number * 2, number / 2] if number else [1]
            tolerance = 0.0 if kind == "int" else 1e-3
            return number_question(step, name, fact, w.text("quiz.value", name=name), number, wrong, "", None, tolerance)
        return None
    numel, element_nbytes = value["numel"], value["element_size"]
    if fact == "stride":
        stride = value["stride"]
        wrong = [stride[::-1], contiguous_stride(value["shape"])]
        if source is not None:
            wrong.append(source["stride"])
        return ints_question(step, name, fact, w.text("quiz.stride", name=name), stride, wrong, stride_reason(value, source, w))
    if fact == "offset":
        offset = value["storage_offset"]
        return number_question(
            step,
            name,
            fact,
            w.text("quiz.offset", name=name),
            offset,
            [offset + 1, offset * 2 if offset else 1, offset * element_nbytes],
            "",
            None,
        )
    if fact == "contiguous":
        reason = (
            None
            if value["contiguous"]
            else w.text(
                "quiz.reason.not_contiguous",
                stride=shape_text(value["stride"]),
                fresh=shape_text(contiguous_stride(value["shape"])),
            )
        )
        return bool_question(step, name, fact, w.text("quiz.contiguous", name=name), value["contiguous"], reason, w)
    if fact == "numel":
        return number_question(
            step,
            name,
            fact,
            w.text("quiz.numel", name=name),
            numel,
            [numel * element_nbytes, sum(value["shape"])],
            "",
            w.text("quiz.reason.numel", shape=shape_text(value["shape"])),
        )
    if fact == "nbytes":
        other_sizes = [DEFAULT_ELEMENT_NBYTES if element_nbytes != DEFAULT_ELEMENT_NBYTES else 2, 8]
        if source is not None and source["element_size"] != element_nbytes:
            other_sizes.insert(0, source["element_size"])
        wrong = [numel * size for size in other_sizes if size != element_nbytes] + [numel]
        sizes = {"numel": f"{numel:,}", "size": element_nbytes, "dtype": value["dtype"], "nbytes": f"{value['nbytes']:,}"}
        if source is not None and source["element_size"] != element_nbytes:
            reason = w.text("quiz.reason.nbytes_cast", **sizes, source_dtype=source["dtype"], source_size=source["element_size"])
        else:
            reason = w.text("quiz.reason.nbytes", **sizes)
        return number_question(step, name, fact, w.text("quiz.nbytes", name=name), value["nbytes"], wrong, "B", reason)
    return None


def flops_question(step: int, compute: Compute, words: Catalogue | None = None) -> Question:
    w = words or load()
    flops = compute["flops"]
    ops = " ".join(compute.get("by_op") or {})
    if flops == 0:
        reason = w.text("quiz.reason.flops_zero")
    elif re.search(r"\b(mm|matmul|addmm|bmm|baddbmm|linear|convolution)\b", ops.replace("aten.", "")):
        reason = w.text("quiz.reason.matmul_flops")
    else:
        reason = w.text("quiz.reason.flops_counted", ops=ops)
    wrong = [flops / 2, flops * 2, flops * 4] if flops else [1.0, 2.0]
    return number_question(step, "", "flops", w.text("quiz.flops"), flops, wrong, "FLOPs", reason, 0.01)


def bytes_question(step: int, collective: Collective, words: Catalogue | None = None) -> Question:
    w = words or load()
    sent, payload, group, op = collective["sent_nbytes"], collective["nbytes"], collective["group_size"], collective["op"]
    reason = w.text(
        "quiz.reason.bytes", algorithm=collective["algorithm"], op=op, payload=f"{payload:,}", group=group, sent=f"{sent:,}"
    )
    wrong = [payload, payload * group, payload * 2]
    return number_question(step, "", "bytes", w.text("quiz.bytes", op=op), sent, wrong, "B", reason, 0.01)


def reduction_question(
    step: int, name: str, value: dict[str, Any], source_name: str, source: dict[str, Any], words: Catalogue | None = None
) -> Question:
    w = words or load()
    shape, before = value["shape"], source["shape"]
    reason = None
    wrong = [before]
    for k in range(len(before)):
        removed = before[:k] + before[k + 1 :]
        kept = before[:k] + [1] + before[k + 1 :]
        if removed == shape:
            reason = w.text("quiz.reason.reduce_removes", dim=k)
            wrong.append(kept)
        elif kept == shape and len(before) == len(shape):
            reason = w.text("quiz.reason.keepdim", dim=k)
            wrong.append(removed)
    if len(before) >= 2:
        wrong.append(before[1:])
    if reason is None:
        reason = w.text("quiz.reason.collapses", source=source_name, before=shape_text(before), after=shape_text(shape))
    return ints_question(step, name, "shape", w.text("quiz.shape", name=name), shape, wrong, reason)
