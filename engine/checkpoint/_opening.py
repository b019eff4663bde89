"""LangGraph's ways of opening a saver, for programs written against LangGraph's savers.

LangGraph's SQL savers are opened with ``with Saver.from_conn_string(...) as
saver:`` (``async with`` for the ``aio`` ones) and want ``saver.setup()``
called once to create their tables. The engine's savers migrate their schema
themselves (the SQLite saver when it opens the file, the PostgreSQL one
before its first call), so ``setup`` is there for those programs and does
what LangGraph's does: make sure the tables exist.
"""

from __future__ import annotations

from contextlib import asynccontextmanager, contextmanager
from typing import Any, AsyncIterator, Iterator

from engine._internal._unsupported import refuse

__all__ = ["OpenedByConnString", "opened", "aopened"]


class OpenedByConnString:
    """``from_conn_string`` (a ``with`` block) and ``setup`` for a saver constructed from a connection string."""

    def setup(self) -> None:
        """Nothing to do: the schema is migrated when the saver opens (kept for LangGraph's programs)."""

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, pipeline: bool = False, serde: Any = None) -> Iterator[Any]:
        """Open a saver on ``conn_string`` for the ``with`` block, closing it after.

        ``pipeline`` (LangGraph's psycopg pipeline mode) is not supported: NotImplementedError unless False.
        """
        with opened(cls, conn_string, pipeline=pipeline, serde=serde) as saver:
            yield saver


@contextmanager
def opened(cls: Any, conn_string: str, *, pipeline: bool = False, serde: Any = None) -> Iterator[Any]:
    refuse(f"{cls.__name__}.from_conn_string", pipeline=pipeline)
    saver = cls(conn_string, serde=serde)
    try:
        yield saver
    finally:
        saver.close()


@asynccontextmanager
async def aopened(cls: Any, conn_string: str, *, pipeline: bool = False, serde: Any = None) -> AsyncIterator[Any]:
    refuse(f"{cls.__name__}.from_conn_string", pipeline=pipeline)
    saver = cls(conn_string, serde=serde)
    try:
        yield saver
    finally:
        await saver.aclose()
