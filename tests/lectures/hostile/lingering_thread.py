"""A lecture whose thread never ends: main() returns while a non-daemon thread keeps running."""

import threading
import time


def spin():
    while True:
        time.sleep(0.05)


def main():
    threading.Thread(target=spin, name="forever").start()
    started = True  # @inspect started
