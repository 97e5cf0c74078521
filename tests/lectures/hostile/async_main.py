"""main() is a coroutine function."""

import asyncio


async def main():
    n = 1  # @inspect n
    await asyncio.sleep(0)
    m = n + 1  # @inspect m
