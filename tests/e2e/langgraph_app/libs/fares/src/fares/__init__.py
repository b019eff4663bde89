"""Fares, a local package the project lists in its dependencies (src layout)."""


def fare(city: str) -> int:
    return 90 + 5 * len(city)
