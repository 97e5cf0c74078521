"""A lecture where another tool (a debugger, say) takes the tracer over and later gives it back."""

import sys


def other_tool(frame, event, arg):
    return None


def main():
    before = 1  # @inspect before
    sys.settrace(other_tool)
    during = 2
    sys.settrace(None)
    after = 3  # @inspect after
