"""``PersistentDict``: a dict that writes itself to a file when synced or closed (LangGraph's name).

LangGraph's in-memory saver can keep its maps in one (``InMemorySaver(factory=
functools.partial(PersistentDict, filename=...))``), so what it held survives
the process. LangGraph writes it with pickle; the engine never does: the file
is msgpack of plain data (dataclass instances as lists of their fields), and
:meth:`PersistentDict.load` reads plain data back, never an object a stored
name chose.
"""

from __future__ import annotations

import dataclasses
import os
from collections import defaultdict
from typing import Any

import msgpack  # type: ignore[import-untyped]

__all__ = ["PersistentDict"]


class PersistentDict(defaultdict):  # type: ignore[type-arg]
    """A ``defaultdict`` kept in memory and written to ``filename`` on :meth:`sync` and :meth:`close`."""

    def __init__(self, *args: Any, filename: str, **kwargs: Any) -> None:
        self.filename = filename
        super().__init__(*args, **kwargs)

    def sync(self) -> None:
        """Write the dict to its file, atomically (a temporary file renamed over it)."""
        tmp = self.filename + ".tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(msgpack.packb(dict(self), default=_plain, use_bin_type=True))
        except Exception:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        os.replace(tmp, self.filename)

    def load(self) -> None:
        """Add what the file holds (plain data) to the dict; nothing if there is no file."""
        if not os.path.exists(self.filename):
            return
        with open(self.filename, "rb") as f:
            self.update(msgpack.unpackb(f.read(), raw=False, strict_map_key=False, use_list=False))

    def close(self) -> None:
        self.sync()
        self.clear()

    def __enter__(self) -> PersistentDict:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def _plain(value: Any) -> Any:
    """What msgpack cannot pack, as plain data: a dataclass instance as its fields' values, a set as a list."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [getattr(value, f.name) for f in dataclasses.fields(value)]
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"PersistentDict stores plain data; {type(value).__name__} is not")
