"""main is bound by assignment."""


def real_main():
    x = 1  # @inspect x


main = real_main
