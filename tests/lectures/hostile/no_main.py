"""No main() at all."""

x = 1
