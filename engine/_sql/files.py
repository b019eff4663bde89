"""Reading a saver's numbered migration files and fresh schema (shared by SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

__all__ = ["MigrationTexts", "read_migrations", "read_schema"]

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


class MigrationTexts:
    """A saver's or store's ``MIGRATIONS``, as LangGraph's SQL savers and stores name them: the SQL
    of each numbered migration, in order (on the class and its instances; read-only).

    LangGraph's ``setup()`` runs whatever list an instance holds; graphwire's runs its own files
    (a new schema gets ``schema.sql`` in one go), so the list is there to read. Setting it to the
    same texts is allowed (a program that rewrites each one, changing none); any other list is
    refused rather than silently not run.
    """

    def __init__(self, migrations: Callable[[], tuple[tuple[int, str], ...]]) -> None:
        self._migrations = migrations

    def __get__(self, obj: Any, owner: type | None = None) -> tuple[str, ...]:
        return tuple(text for _, text in self._migrations())

    def __set__(self, obj: Any, value: Sequence[str]) -> None:
        if list(value) != list(self.__get__(obj)):
            raise NotImplementedError(
                f"{type(obj).__name__}.MIGRATIONS cannot be changed: graphwire migrates its own schema "
                "(its numbered files, applied in order by setup())"
            )
