"""Forks; the child leaves with os._exit(0) and the child that returns normally must not write a trace."""

import os


def main():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    done = True  # @inspect done
