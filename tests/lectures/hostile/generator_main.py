"""main() is a generator: calling it runs nothing."""


def main():
    n = 1  # @inspect n
    yield n
