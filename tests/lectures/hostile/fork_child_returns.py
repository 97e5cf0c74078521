"""Forks; the child runs on to the end of main(): only the parent may write the trace."""

import os


def main():
    pid = os.fork()
    who = "child" if pid == 0 else "parent"  # @inspect who
    if pid:
        os.waitpid(pid, 0)
