"""Finding what an ``@inspect`` names without running the lecture's code: a dotted or subscripted name (``x[0]``,
``d['k']``, ``obj.attr[i]``: built-in containers, tensors and arrays only) read from a
frame's locals and globals, each attribute read statically (no property, no ``__getattr__``).

This module must not encode values nor decide when to record.
"""

from __future__ import annotations

import difflib
import inspect
import re
import sys
import types
from typing import Any, Container

from tracer.capture.encoder_core import safe_class_name


class StaticAttributeError(AttributeError):
    """A dotted ``@inspect`` that would have to run the lecture's own code (a property, a
    ``__getattr__``) to read the attribute: it is not run, and the card says so."""


_C_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)


def _instance_dict(obj: Any) -> dict[str, Any] | None:
    """The object's own ``__dict__``, read past any ``__getattribute__`` the lecture defined."""
    try:
        found = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return None
    return found if isinstance(found, dict) else None


def static_attribute(obj: Any, attr: str) -> Any:
    """``getattr(obj, attr)`` without running code the lecture wrote: an instance's own ``__dict__``,
    a class attribute, a bound method, or a descriptor implemented in C (``tensor.shape``,
    ``tensor.T``: no lecture code runs). A Python ``property`` or other Python-level descriptor, and
    an attribute only ``__getattr__`` provides, raise ``StaticAttributeError`` (an ``nn.Module``'s
    parameters, buffers and submodules are read from its own tables)."""
    try:
        found = inspect.getattr_static(obj, attr)
    except AttributeError:
        tables = _instance_dict(obj)
        for table in ("_parameters", "_buffers", "_modules"):  # torch.nn.Module keeps these out of __dict__
            entries = tables.get(table) if isinstance(tables, dict) else None
            if isinstance(entries, dict) and attr in entries:
                return entries[attr]
        if isinstance(tables, dict) and "_parameters" in tables:
            raise  # an nn.Module without it: its __getattr__ would say no too
        if inspect.getattr_static(type(obj), "__getattr__", None) is not None:
            raise StaticAttributeError(
                f"{safe_class_name(obj)}.{attr} could only come from __getattr__, which "
                "chalktrace does not run (it is the lecture's code)"
            ) from None
        raise
    instance_dict = _instance_dict(obj)
    if isinstance(instance_dict, dict) and attr in instance_dict:
        return instance_dict[attr]
    if isinstance(
        found,
        (
            types.FunctionType,
            classmethod,
            staticmethod,
            types.BuiltinFunctionType,
            types.MethodDescriptorType,
            types.WrapperDescriptorType,
        ),
    ) or isinstance(obj, types.ModuleType):
        return getattr(obj, attr)  # a method object: binding it runs no lecture code
    if isinstance(found, _C_DESCRIPTORS) or not hasattr(type(found), "__get__"):
        return getattr(obj, attr) if isinstance(found, _C_DESCRIPTORS) else found
    kind = "property" if isinstance(found, property) else f"{type(found).__name__} descriptor"
    raise StaticAttributeError(
        f"{safe_class_name(obj)}.{attr} is a {kind}: reading it runs the lecture's code, "
        "which chalktrace does not run again; bind it to a name and inspect that"
    )


# one part of an inspected path: ``.attr`` or ``[key]`` (key: an int, a quoted string, or a name path)
_PART = re.compile(r"\.([A-Za-z_]\w*)|\[(-?\d+|'[^'\[\]]*'|\"[^\"\[\]]*\"|[A-Za-z_][\w.]*)\]")
_HEAD = re.compile(r"[A-Za-z_]\w*")
# Subscripting runs the container's __getitem__: only containers whose indexing has no side effect.
_SUBSCRIPTABLE = (list, tuple, dict, str, bytes, range, types.MappingProxyType)
_SUBSCRIPTABLE_MODULES = ("torch", "numpy", "collections")


def _subscript(obj: Any, key: Any, shown: str) -> Any:
    kind = type(obj)
    if not (isinstance(obj, _SUBSCRIPTABLE) or kind.__module__.split(".")[0] in _SUBSCRIPTABLE_MODULES):
        raise TypeError(f"{shown}: indexing a {safe_class_name(obj)} could run its code; inspect the object itself")
    return obj[key]


def lookup(name: str, f_locals: dict[str, Any], f_globals: dict[str, Any], local_names: Container[str] = ()) -> Any:
    """Resolve a name, dotted path or subscripted path (``x[0]``, ``d['k']``, ``h[-1]``,
    ``obj.attr[i]``) in a frame; raises NameError/AttributeError/KeyError/IndexError/TypeError when
    it does not exist or cannot be read without running code. Attributes are read with
    ``static_attribute`` (inspecting never runs a property again); subscripts only index built-in
    containers, tensors and arrays, with a literal key or one read the same way (no call).
    ``local_names``: the function's own variables. One of them without a value (deleted with
    ``del``, or not yet assigned) is unbound, as Python says, never a global of the same name."""
    head_match = _HEAD.match(name)
    head = head_match.group(0) if head_match else name
    if head in f_locals:
        obj = f_locals[head]
    elif head in local_names:
        raise UnboundLocalError(f"cannot access local variable {head!r} where it is not associated with a value")
    elif head in f_globals:
        obj = f_globals[head]
    elif hasattr(sys.modules["builtins"], head):
        obj = getattr(sys.modules["builtins"], head)
    else:
        close = difflib.get_close_matches(head, [*f_locals, *f_globals], n=1)
        hint = f". Did you mean: {close[0]!r}?" if close else ""  # as Python's own NameError suggests
        raise NameError(f"name {head!r} is not defined{hint}")
    at = len(head)
    while at < len(name):
        part = _PART.match(name, at)
        if part is None:
            raise SyntaxError(f"cannot read {name!r} at {name[at:]!r}")
        if part.group(1) is not None:
            obj = static_attribute(obj, part.group(1))
        else:
            raw = part.group(2)
            if raw[0] in "'\"":
                key: Any = raw[1:-1]
            elif raw.lstrip("-").isdigit():
                key = int(raw)
            else:
                key = lookup(raw, f_locals, f_globals, local_names)
            obj = _subscript(obj, key, name[: part.end()])
        at = part.end()
    return obj
