"""The Python clients page a thread's runs, against the real server (issue 28 item 3):
``list_runs_page`` says where the next page starts, paging to the end gives every run once,
a listing leaves each run's final state out unless ``include_values``, and ``get_run`` has it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from graphwire import FinishReason, NotFound, RunPage

from tests.conftest import ServerProcess


def test_the_blocking_client_pages_runs_to_the_end(server: ServerProcess, thread_id: str) -> None:
    with server.client() as client:
        finals = [client.invoke("chain3", thread_id, {"n": n}).values for n in range(5)]
        every = client.list_runs("chain3", thread_id)
        pages, before = [], None
        while True:
            page = client.list_runs_page("chain3", thread_id, limit=2, before=before)
            assert isinstance(page, RunPage)
            pages.append([r.run_id for r in page.runs])
            if page.next_before is None:
                break
            assert page.next_before == page.runs[-1].run_id
            before = page.next_before
        assert pages == [[r.run_id for r in every[i : i + 2]] for i in (0, 2, 4)]
        assert every[0].values is None and every[0].reason is FinishReason.END  # left out; the rest kept
        [newest] = client.list_runs("chain3", thread_id, limit=1, include_values=True)
        assert newest.values == finals[-1]
        assert client.get_run(newest.run_id).values == finals[-1]
        with pytest.raises(NotFound):
            client.list_runs_page("chain3", thread_id, limit=1, before="no-such-run")


def test_the_async_client_pages_runs_too(server: ServerProcess, thread_id: str) -> None:
    async def body() -> tuple[Any, Any]:
        async with server.async_client() as client:
            await client.invoke("chain3", thread_id, {"n": 1})
            done = await client.invoke("chain3", thread_id, {"n": 2})
            first = await client.list_runs_page("chain3", thread_id, limit=1, include_values=True)
            rest = await client.list_runs_page("chain3", thread_id, limit=1, before=first.next_before)
            return done, (first, rest)

    done, (first, rest) = asyncio.run(body())
    assert first.runs[0].values == done.values and first.next_before == first.runs[0].run_id
    assert len(rest.runs) == 1 and rest.next_before is None and rest.runs[0].values is None
