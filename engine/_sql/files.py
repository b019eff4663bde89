"""Reading a saver's numbered migration files and fresh schema (shared by SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["read_migrations", "read_schema"]

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def read_migrations(package: str, what: str) -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every ``NNNN_name.sql`` in ``package``, in order.

    Raises:
        RuntimeError: the numbers are not 1..N without gaps (``what`` names the saver).
    """
    found = []
    for entry in resources.files(package).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"{what} migrations must be numbered 1..N without gaps, found {numbers}")
    return tuple(found)


def read_schema(package: str) -> str:
    """The SQL of ``package``'s current schema (``schema.sql``), for a new database."""
    return resources.files(package).joinpath("schema.sql").read_text(encoding="utf-8")
