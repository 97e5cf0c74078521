import asyncio


def counter():
    total = 0
    while True:
        x = yield total  # @inspect x
        total += x  # @inspect total


async def fetch(n):
    await asyncio.sleep(0)
    return n * 2


async def work():
    a = await fetch(3)  # @inspect a
    b = await asyncio.sleep(0, result=a + 1)  # @inspect b
    return b


async def agen():
    v = yield 1  # @inspect v
    w = v + 1  # @inspect w
    yield w


async def drive():
    ag = agen()
    first = await ag.__anext__()
    second = await ag.asend(10)  # @inspect second
    return second


def main():
    c = counter()
    next(c)
    c.send(5)
    c.send(7)
    r = asyncio.run(work())  # @inspect r
    s = asyncio.run(drive())  # @inspect s
