"""Exceptions that are kept, raised again, chained and grouped: every step stays on the page."""


def fail(n):
    raise ValueError(f"bad {n}")


def chained():
    try:
        fail(2)
    except ValueError as exc:
        raise RuntimeError("wrapped") from exc


def grouped():
    errors = []
    for n in (3, 4):
        try:
            fail(n)
        except ValueError as exc:
            errors.append(exc)
    try:
        raise ExceptionGroup("several", errors)
    except* ValueError as group:
        count = len(group.exceptions)  # @inspect count
    return count


def main():
    kept = None
    try:
        fail(1)
    except ValueError as exc:
        kept = exc
    try:
        chained()
    except RuntimeError as exc:
        cause = str(exc.__cause__)  # @inspect cause
    count = grouped()  # @inspect count
    try:
        a = 1  # @inspect a
    finally:
        b = a + 1  # @inspect b
    raise kept
