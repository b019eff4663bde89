"""LangGraph options the engine takes but does not honour yet: refused, never ignored.

A ported program that sets one of them would behave differently here, so a
non-default value raises NotImplementedError naming the docs' list of
differences (the porting promise: a program runs the same, or fails saying
why). The options themselves stay in the signatures, so a program that
leaves them at their defaults runs unchanged.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WHERE_IT_DIFFERS", "refuse", "refuse_aiosqlite"]

WHERE_IT_DIFFERS = 'graphwire\'s docs, "Where it differs" (docs/porting.md)'


def _default(value: Any) -> bool:
    if value is None or value is False:
        return True
    return isinstance(value, (str, tuple, list, dict, set, frozenset)) and not value


def refuse(call: str, **options: Any) -> None:
    """NotImplementedError for the first of ``options`` set to other than its default.

    Every option passed here defaults to None, False or an empty collection;
    pass one whose default is something else as None when it has that value.
    """
    for name, value in options.items():
        if not _default(value):
            raise NotImplementedError(f"{call}({name}={value!r:.60}) is not supported yet; see {WHERE_IT_DIFFERS}")


def refuse_aiosqlite(cls: str, conn: Any) -> None:
    """NotImplementedError when ``conn`` is an ``aiosqlite`` connection, which LangGraph's async SQLite
    saver and store take: class ``cls`` here takes a path or a ``sqlite3`` connection."""
    if type(conn).__module__.partition(".")[0] == "aiosqlite":
        raise NotImplementedError(
            f"{cls} takes a path ({cls}.from_conn_string(path)) or a sqlite3 connection, not an aiosqlite one; see {WHERE_IT_DIFFERS}"
        )
