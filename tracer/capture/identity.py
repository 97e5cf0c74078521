"""``identity(obj)``: an object's identity as an int, for the hot path's dictionaries.

It is unique among live objects, like ``id()``, but raises no audit event. While a lecture runs,
chalktrace listens to audit events (the files it reads, the child processes it starts), and every
``id()`` call would run that Python hook first: about 10% of the recorder's time per traced call.
This module must hold nothing else.
"""

from __future__ import annotations

from typing import Any, Callable, Final

# object.__hash__ is the default hash: the object's address, rotated (a one-to-one map).
identity: Final[Callable[[Any], int]] = object.__hash__
