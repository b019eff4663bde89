"""The Python clients' ``channels=N``: calls spread over N connections (a thread's on the one its id names, others round-robin)
(tests/replicas/test_workers.py shows them reaching both workers of ``--workers 2``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from graphwire import AsyncClient, Client, EventKind


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, 2000])
def test_a_count_that_is_not_a_whole_number_from_1_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="channels must be a whole number from 1 to 1024"):
        Client("127.0.0.1:1", channels=bad)


def test_every_call_kind_works_over_a_pool(server: Any, thread_id: str) -> None:
    with Client(server.address, channels=3) as client:
        for n in range(4):  # more calls than connections: each connection serves more than one
            assert client.invoke("chain3", thread_id, {"n": 3 * n}).values["n"] == 3 * n + 3
        kinds = [e.kind for e in client.stream("chain3", thread_id, {"n": 0})]
        assert kinds[0] is EventKind.RUN_STARTED and kinds[-1] is EventKind.RUN_FINISHED
        assert len(client.list_runs("chain3", thread_id)) == 5
        assert client.get_state("chain3", thread_id).values["n"] == 3


def test_the_async_client_pools_too(server: Any, thread_id: str) -> None:
    async def body() -> list[int]:
        async with AsyncClient(server.address, channels=4) as client:
            results = await asyncio.gather(*(client.invoke("chain3", f"{thread_id}-{i}", {"n": i}) for i in range(8)))
            return [r.values["n"] for r in results]

    assert asyncio.run(body()) == [i + 3 for i in range(8)]
