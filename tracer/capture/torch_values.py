"""PyTorch objects as Values: tensors (dtype, shape, strides, storage identity, a bounded preview,
statistics, a heatmap of a big matrix), meta, nested and sparse tensors, dtypes, devices, sizes,
finfo/iinfo and modules.

Large tensors are previewed, never copied whole: a tensor's preview, statistics and heatmap are
computed with torch ops on its own device and its card is read back in one small copy
(``device_readout``; a CPU tensor runs the same code, its copy a memcpy). A small tensor on a device
is read back whole first and its card computed on the host, so capture allocates nothing on the
device that the lecture's peak memory would show. A host tensor that the preview shows whole is read
by numpy (``_whole_on_host``): a dozen torch ops would cost more than its few elements.

Called by ``values.ValueEncoder`` through ``encoder_core.Encoding``; this module must not decide
when to record nor write files.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

from tracer.capture.device_readout import DeviceReadout, one_cpu_thread, read_whole, span_nbytes
from tracer.capture.encoder_core import Encoding, class_name, dtype_name, insert_ellipses, json_float, nested, to_json_list
from tracer.capture.element_stats import array_stats, chunk_rows, stats_from_rows
from tracer.capture.heatmap_codes import HEATMAP_POOL_ELEMENTS, heatmap_part, heatmap_record
from tracer.capture.shortest_floats import shortest_floats, shortest_rounded

# A tensor on a device whose storage span is at most this many bytes is read back whole (one copy,
# no bigger than a large tensor's card readout) and its card computed on the host.
READ_WHOLE_NBYTES = 1 << 16


def encode_torch(enc: Encoding, value: Any) -> dict[str, Any] | None:
    import torch

    if isinstance(value, torch.Tensor):
        return encode_tensor(enc, value)
    if isinstance(value, torch.dtype):
        return {
            "type": "dtype",
            "value": dtype_name(value),
            "itemsize": value.itemsize,
            "is_floating_point": value.is_floating_point,
        }
    if isinstance(value, torch.device):
        return {"type": "device", "value": str(value)}
    if isinstance(value, torch.Size):
        return {"type": "size", "value": [int(d) for d in value]}
    if isinstance(value, torch.finfo):
        return {
            "type": "finfo",
            "dtype": dtype_name(value.dtype),
            "bits": value.bits,
            "eps": json_float(value.eps),
            "max": json_float(value.max),
            "min": json_float(value.min),
            "smallest_normal": json_float(value.smallest_normal),
            "resolution": json_float(value.resolution),
        }
    if isinstance(value, torch.iinfo):
        return {
            "type": "iinfo",
            "dtype": dtype_name(value.dtype),
            "bits": value.bits,
            "min": int(value.min),
            "max": int(value.max),
        }
    if isinstance(value, torch.nn.Module):
        return _module(enc, value)
    return None


def _module(enc: Encoding, module: Any) -> dict[str, Any]:
    params = list(module.named_parameters())
    cap = enc.limits.container_items
    return {
        "type": "module",
        "class": class_name(module),
        "num_parameters": int(sum(p.numel() for _, p in params)),
        "parameters": [{"name": n, "shape": [int(d) for d in p.shape], "dtype": dtype_name(p.dtype)} for n, p in params[:cap]],
        "parameters_truncated": len(params) > cap,
        "repr": enc.repr_text(module),
    }


def encode_tensor(enc: Encoding, t: Any) -> dict[str, Any]:
    import torch

    if type(t) is not torch.Tensor and not isinstance(t, torch.nn.Parameter):
        # a subclass: its class name, and the card of the plain tensor it holds
        subclass = class_name(t)
        record = encode_tensor(enc, t.as_subclass(torch.Tensor))
        return {**record, "subclass": subclass} if record.get("type") == "tensor" else record
    if t.is_meta:
        return _meta_tensor(t)
    if t.is_nested:
        return _nested_tensor(enc, t)
    if t.layout != torch.strided:
        return _sparse_tensor(enc, t)
    storage_id, storage_nbytes = enc.registry.storage_id(t)
    numel = t.numel()
    quantized = _quantization(t) if t.is_quantized else None
    # Everything the card shows is computed on the tensor's own device and read back in one copy;
    # a small tensor on a device is read back whole, and its card computed on the host (read_whole).
    with torch.no_grad(), one_cpu_thread():
        x = t.detach()
        on_host = _read_whole_first(x)
        if on_host:
            x = read_whole(x)
        if _whole_on_host(enc, x):
            values, truncated, stats_record, heatmap_record_ = _host_values(x), False, _host_stats(x), None
        else:
            readout = DeviceReadout(private=on_host)
            shown = _preview_part(enc, x.int_repr() if t.is_quantized else x, readout)
            stats = _stats_part(enc, x, readout) if (t.is_floating_point() and numel > 0) else None
            # the preview shows corners: the heatmap shows the whole tensor
            heatmap = None
            if shown.truncated and not t.is_quantized:
                # every element's min and max are the statistics' already (exact in float32 or float64)
                shared_ends = stats is not None and not stats.sampled and numel <= HEATMAP_POOL_ELEMENTS
                heatmap = heatmap_part(x, readout, ends=not shared_ends)
            host = readout.fetch()
            values, truncated = _preview_values(shown, host), shown.truncated
            stats_record = None if stats is None else _stats_record(stats, host)
            heatmap_record_ = None
            if heatmap is not None:
                heatmap_record_ = heatmap_record(heatmap, host, None if stats is None else _stats_ends(stats, host))
    record = {
        "type": "tensor",
        "dtype": dtype_name(t.dtype),
        "shape": [int(d) for d in t.shape],
        "stride": [int(s) for s in t.stride()],
        "storage_offset": int(t.storage_offset()),
        "contiguous": bool(t.is_contiguous()),
        "device": str(t.device),
        "element_size": int(t.element_size()),
        "numel": int(numel),
        "nbytes": int(numel * t.element_size()),
        "storage_id": storage_id,
        "storage_nbytes": storage_nbytes,
        "requires_grad": bool(t.requires_grad),
        "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
        "values": values,
        "truncated": truncated,
        "stats": stats_record,
    }
    if heatmap_record_ is not None:
        record["heatmap"] = heatmap_record_
    if quantized is not None:
        record["quantized"] = quantized  # "values" are the stored integers
    return record


def _whole_on_host(enc: Encoding, x: Any) -> bool:
    """Whether ``x``'s card is its every element, read on the host with numpy rather than by torch ops
    (each of which costs microseconds of dispatch however small its tensor): a host tensor that the
    preview shows whole (so it has no heatmap) of a dtype numpy holds (or bfloat16, whose float32s
    are its numbers), when numpy is installed. A training loop inspects such tensors on every step;
    their cards cost half as much so."""
    return (
        x.device.type == "cpu"
        and x.numel() <= enc.limits.tensor_elements
        and x.dtype in _numpy_dtypes()
        and not (x.is_quantized or x.is_neg())
    )


@functools.cache
def _numpy_dtypes() -> frozenset[Any]:
    """The torch dtypes whose statistics numpy computes (its floats, and bfloat16 widened to float32
    exactly) or that have none (integers, bool, complex), or none when numpy is not installed (torch
    works without it)."""
    import torch

    try:
        import numpy  # noqa: F401
    except ImportError:
        return frozenset()
    names = "float16 float32 float64 bfloat16 bool uint8 int8 int16 int32 int64 complex64 complex128".split()
    return frozenset(getattr(torch, name) for name in names)


def _host_stats(x: Any) -> dict[str, Any] | None:
    """The ``stats`` record of a host tensor that ``_whole_on_host`` took (none when not floating or empty)."""
    import torch

    if not x.is_floating_point() or x.numel() == 0:
        return None
    # numpy has no bfloat16: its float32s are the same numbers
    host = x.float().numpy() if x.dtype == torch.bfloat16 else x.numpy()
    return _in_own_precision(array_stats(host), x.dtype)  # rounded as the device path rounds


def _read_whole_first(x: Any) -> bool:
    """Whether a tensor on a device is read back whole before its card is computed, on the host.

    Computing a card on the device allocates there (a float64 chunk for the statistics, the
    heatmap's cells), and the allocator's peak is both the trace's ``peak_nbytes`` and what the
    lecture's own ``torch.cuda.max_memory_allocated()`` returns: a card of a small tensor taken
    right after the lecture made it recorded a peak four times what the lecture ever held. Read
    whole, a small tensor costs one copy no bigger than a card's readout and allocates nothing on
    the device. A larger one is still computed there, for speed: when the lecture is at its peak as
    it is inspected, the card's scratch (at most a few float64 chunks of ``STATS_CHUNK_ELEMENTS``)
    still shows in the peak.
    """
    return (
        x.device.type != "cpu" and not (x.is_quantized or x.is_conj() or x.is_neg()) and 0 < span_nbytes(x) <= READ_WHOLE_NBYTES
    )


def _meta_tensor(t: Any) -> dict[str, Any]:
    """A tensor with no data (device "meta"): what it would hold and take, never a value."""
    numel = t.numel()
    return {
        "type": "meta_tensor",
        "dtype": dtype_name(t.dtype),
        "shape": [int(d) for d in t.shape],
        "stride": [int(s) for s in t.stride()],
        "element_size": int(t.element_size()),
        "numel": int(numel),
        "nbytes": int(numel * t.element_size()),
        "requires_grad": bool(t.requires_grad),
    }


def _nested_tensor(enc: Encoding, t: Any) -> dict[str, Any]:
    """A nested tensor: the shape of each component (the first ``container_items``)."""
    components = t.unbind()
    cap = enc.limits.container_items
    return {
        "type": "nested_tensor",
        "dtype": dtype_name(t.dtype),
        "device": str(t.device),
        "length": len(components),
        "shapes": [[int(d) for d in c.shape] for c in components[:cap]],
        "truncated": len(components) > cap,
        "requires_grad": bool(t.requires_grad),
    }


def _sparse_tensor(enc: Encoding, t: Any) -> dict[str, Any]:
    """A sparse tensor (COO, CSR, CSC, BSR, BSC): layout, nnz, and a preview of each index and
    value array it stores."""
    layout = str(t.layout).removeprefix("torch.")
    if layout == "sparse_coo":
        t = t.coalesce()
        parts = [("indices", t.indices()), ("values", t.values())]
    elif layout in ("sparse_csr", "sparse_bsr"):
        parts = [("crow_indices", t.crow_indices()), ("col_indices", t.col_indices()), ("values", t.values())]
    else:
        parts = [("ccol_indices", t.ccol_indices()), ("row_indices", t.row_indices()), ("values", t.values())]
    with one_cpu_thread():
        readout = DeviceReadout()
        shown = [_preview_part(enc, part.int_repr() if part.is_quantized else part, readout) for _name, part in parts]
        host = readout.fetch()
    components = [
        {
            "name": name,
            "shape": [int(d) for d in part.shape],
            "dtype": dtype_name(part.dtype),
            "values": _preview_values(kept, host),
            "truncated": kept.truncated,
        }
        for (name, part), kept in zip(parts, shown)
    ]
    nbytes = sum(int(part.numel() * part.element_size()) for _name, part in parts)
    return {
        "type": "sparse_tensor",
        "layout": layout,
        "dtype": dtype_name(t.dtype),
        "shape": [int(d) for d in t.shape],
        "device": str(t.device),
        "nnz": int(t._nnz()),
        "nbytes": nbytes,
        "components": components,
    }


@dataclasses.dataclass
class _Shown:
    """A preview's device half: the readout handle of the kept elements, which entries of each
    dimension they are (``(head, tail)``, None for all) and whether any were cut."""

    handle: int
    keep: list[tuple[int, int] | None]
    truncated: bool


def _preview_part(enc: Encoding, t: Any, readout: DeviceReadout) -> _Shown:
    """Queue the leading and trailing entries of each dimension of ``t`` (selected on its device)."""
    import torch

    with torch.no_grad():
        t = t.detach()
        budget = enc.limits.tensor_elements
        truncated = t.dim() > 0 and t.numel() > budget
        keep: list[tuple[int, int] | None] = []  # per dim: (head, tail) kept, None = all
        if truncated:
            edge = max(1, int(budget ** (1.0 / t.dim()) / 2))
            for size in t.shape:
                keep.append((edge, edge) if size > 2 * edge else None)
            for dim, k in enumerate(keep):
                if k is not None:
                    size = t.shape[dim]
                    index = torch.cat([torch.arange(k[0], device=t.device), torch.arange(size - k[1], size, device=t.device)])
                    t = t.index_select(dim, index)
        return _Shown(readout.add(t), keep, truncated)


def _preview_values(shown: _Shown, host: list[Any]) -> Any:
    """Nested lists of the kept entries, "…" where cut."""
    values = _host_values(host[shown.handle])
    return insert_ellipses(values, shown.keep) if shown.truncated else values


@dataclasses.dataclass
class _StatsPlan:
    """The statistics' device half: the (sampled) flat elements, the readout handle of their chunk
    rows (``element_stats.chunk_rows``) and whether they are a sample."""

    flat: Any
    rows: int
    sampled: bool


def _stats_part(enc: Encoding, t: Any, readout: DeviceReadout) -> _StatsPlan:
    sample = t.detach()
    sampled = False
    if sample.numel() > enc.limits.stats_elements:
        while sample.numel() > enc.limits.stats_sample:
            dim = max(range(sample.dim()), key=lambda d: sample.shape[d])
            step = max(2, math.ceil(sample.numel() / enc.limits.stats_sample))
            sample = sample.narrow(dim, 0, sample.shape[dim])[(slice(None),) * dim + (slice(None, None, step),)]
            sampled = True
    flat = sample.reshape(-1)
    return _StatsPlan(flat, readout.add(chunk_rows(flat)), sampled)


def _stats_ends(plan: _StatsPlan, host: list[Any]) -> tuple[float, float]:
    """The min and max over every chunk; NaN when an element is NaN or ±Inf (the heatmap then takes
    its finite range itself)."""
    rows = host[plan.rows].tolist()
    ends = [row[0] for row in rows] + [row[1] for row in rows]
    return (min(ends), max(ends)) if all(math.isfinite(v) for v in ends) else (math.nan, math.nan)


def _stats_record(plan: _StatsPlan, host: list[Any]) -> dict[str, Any]:
    stats = _in_own_precision(stats_from_rows(plan.flat, host[plan.rows].tolist()), plan.flat.dtype)
    if plan.sampled:
        stats["sampled"] = True
        stats["sample_count"] = int(plan.flat.numel())
    return stats


def _in_own_precision(stats: dict[str, Any], dtype: Any) -> dict[str, Any]:
    """``stats`` (computed in float64) written in the tensor's own precision where it fits: min and
    max are elements, and a mean is not shown with digits that the summation order decides (a
    transposed view's mean is its original's)."""
    import torch

    if dtype != torch.float64:
        largest = torch.finfo(dtype).max
        for part in (stats, stats.get("finite") or {}):
            keys = [k for k in ("min", "max", "mean", "std") if isinstance(part.get(k), float) and abs(part[k]) <= largest]
            if keys:
                part.update(zip(keys, shortest_rounded([part[k] for k in keys], dtype)))
    return stats


def _quantization(t: Any) -> dict[str, Any]:
    """How a quantized tensor maps its stored integers to numbers: scheme, scale(s), zero point(s)."""
    import torch

    scheme = str(t.qscheme()).removeprefix("torch.")
    if t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        return {"qscheme": scheme, "scale": json_float(float(t.q_scale())), "zero_point": int(t.q_zero_point())}
    scales = t.q_per_channel_scales()[:16].tolist()
    return {
        "qscheme": scheme,
        "axis": int(t.q_per_channel_axis()),
        "scales": [json_float(s) for s in scales],
        "zero_points": [int(z) for z in t.q_per_channel_zero_points()[:16].tolist()],
    }


def _host_values(t: Any) -> Any:
    """A JSON-ready nested list of ``t``'s values (complex as [re, im], NaN and ±Inf as their
    strings); ``t`` is already small. Floats are each the shortest decimal that round-trips in
    ``t``'s own dtype (``shortest_floats.shortest_floats``)."""
    import torch

    t = t.cpu()
    if t.is_complex():
        return to_json_list(torch.view_as_real(t.resolve_conj()).tolist())
    if t.dtype.is_floating_point:
        flat = t.reshape(-1).tolist() if t.dtype == torch.float64 else shortest_floats(t)
        if not all(map(math.isfinite, flat)):
            flat = [json_float(v) for v in flat]
        return nested(flat, list(t.shape))
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return t.to(torch.int64).tolist()
    return t.tolist()
