"""The server's event loop: uvloop where it is installed, else asyncio's own (``event_loop``).

Most of what a served run costs the server is Python (bench/README.md, "The
server's CPU per run"), and part of that is the loop's machinery: in asyncio's
own loop each callback, future wake-up and task step goes through Python
(``call_soon`` makes a ``Handle`` and asks ``get_debug`` and ``_check_closed``;
a served run of a 3-node chain makes about fifty such calls); in uvloop's they are
C. Measured side by side, the server spends 3-7 % less CPU a run on uvloop
(bench/README.md, "uvloop"). gRPC's aio server, psycopg, uvicorn (the HTTP API
and the inspector) and the engine run on either unchanged; the whole test suite
runs on the default. ``event_loop``:

* ``"auto"`` (the default): uvloop when it can be imported (it is a dependency
  of the server on Linux and macOS), else asyncio's;
* ``"uvloop"``: uvloop, and the server refuses to start without it;
* ``"asyncio"``: asyncio's own loop.

Only ``graphwire serve`` (and its workers) choose; the engine in a user's own
process runs on whatever loop that process runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["EVENT_LOOPS", "check_event_loop", "loop_name", "run_on"]

T = TypeVar("T")

EVENT_LOOPS = ("auto", "asyncio", "uvloop")


def check_event_loop(choice: Any) -> None:
    """Refuse an ``event_loop`` setting the server cannot honour (the config's check).

    Raises:
        ValueError: not one of :data:`EVENT_LOOPS`, or ``"uvloop"`` where uvloop cannot be imported.
    """
    if choice not in EVENT_LOOPS:
        raise ValueError(f"event_loop must be one of {', '.join(map(repr, EVENT_LOOPS))}, not {choice!r}")
    if choice == "uvloop" and _uvloop() is None:
        raise ValueError('event_loop = "uvloop" needs the uvloop package (pip install uvloop), or use "auto" or "asyncio"')


def _uvloop() -> Any:
    """The uvloop module, or None where it cannot be imported."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop


def _factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The loop factory for ``choice`` (None: asyncio's default)."""
    uvloop = None if choice == "asyncio" else _uvloop()
    return None if uvloop is None else uvloop.new_event_loop  # type: ignore[no-any-return]


def run_on(choice: str, main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop ``choice`` names (see the module docstring)."""
    with asyncio.Runner(loop_factory=_factory(choice)) as runner:
        return runner.run(main)


def loop_name() -> str:
    """The running loop's kind, as the start's log line names it: "uvloop" or "asyncio"."""
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]
