"""A finished call's objects go when the call does: nothing of it is left for the garbage collector.

A server's collector runs rarely (server/_gc.py: a young collection every 10,000 tracked objects), so
what a call leaves on a reference cycle stays in memory until then: its outbox with the events it
holds, its event log, its task and request. The call's stream's parts held each other (the event
log's callback and the store lag's check); they are let go when the call ends, and a call leaves no
cycle of the server's own objects (gRPC's own handler lookup leaves one, of a few small objects).
The server runs in the test's process (:func:`tests.hardening.conftest.in_process`), so the collector
can be asked what it would have had to free.
"""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

from graphwire import AsyncClient, FinishReason

from engine.checkpoint import SqliteSaver
from tests.hardening.conftest import in_process


def test_a_finished_call_leaves_nothing_of_the_server_s_on_a_cycle(tmp_path: Path, tid: str) -> None:
    async def body() -> set[str]:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
            async with AsyncClient(f"127.0.0.1:{srv.port}") as client:
                await client.invoke("chain3", f"{tid}-warm", {"text": "w"})  # first use: imports, caches
                gc.collect()
                gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage, to look at
                try:
                    for n in range(3):
                        done = await client.invoke("chain3", f"{tid}-{n}", {"text": "x"})
                        assert done.reason is FinishReason.END
                    gc.collect()
                    return {f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage if type(o).__module__.startswith("server")}
                finally:
                    gc.set_debug(0)
                    gc.garbage.clear()

    left = asyncio.run(body())
    assert left == set(), f"a call left these on reference cycles: {sorted(left)}"
