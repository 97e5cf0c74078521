"""main is a number."""

main = 3
