"""Inspects an int with more than 4,300 digits."""


def main():
    big = 10 ** 5000  # @inspect big
    small = 1  # @inspect small
