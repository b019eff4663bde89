"""``alist_threads``: how the inspector finds a graph's threads, on the savers that list them.

Here rather than in tests/checkpoint's conformance suite for now: the method
is optional (the base class raises NotImplementedError), and the PostgreSQL
saver does not implement it yet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.checkpoint.base import BaseCheckpointSaver, ThreadInfo
from engine.checkpoint.sqlite._filters import prefix_end
from server._hub import RunHub
from server._reads import Reads
from server._registry import GraphEntry
from server.inspector import build_app
from tests.graphs import chain3


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    s = InMemorySaver() if request.param == "memory" else SqliteSaver(str(tmp_path / "threads.db"))
    yield s
    s.close()


def write(saver: Any, *threads: str) -> dict[str, str]:
    """Run chain3 on each thread in turn; the newest checkpoint id of each."""
    graph = chain3.compile(checkpointer=saver)
    newest = {}
    for t in threads:
        config = {"configurable": {"thread_id": t}}
        graph.invoke({"n": 0}, config)
        newest[t] = graph.get_state(config).config["configurable"]["checkpoint_id"]
    return newest


def test_threads_by_prefix_most_recently_written_first(saver: Any) -> None:
    newest = write(saver, "g:one", "h:other", "g:two", "g:one", "g;not-g", "g")
    listed = list(saver.list_threads(prefix="g:"))
    assert [t.thread_id for t in listed] == ["g:one", "g:two"]
    assert all(isinstance(t, ThreadInfo) for t in listed)
    assert [t.checkpoint_id for t in listed] == [newest["g:one"], newest["g:two"]]
    assert listed[0].updated_at > listed[1].updated_at  # ISO timestamps of those checkpoints
    # No prefix: every thread, the one written last first.
    assert [t.thread_id for t in saver.list_threads()] == ["g", "g;not-g", "g:one", "g:two", "h:other"]


def test_limit_and_no_match(saver: Any) -> None:
    write(saver, "g:a", "g:b", "g:c")
    assert [t.thread_id for t in saver.list_threads(prefix="g:", limit=2)] == ["g:c", "g:b"]
    assert list(saver.list_threads(prefix="g:", limit=0)) == []
    assert list(saver.list_threads(prefix="zz")) == []
    with pytest.raises(ValueError, match="limit"):
        list(saver.list_threads(limit=-1))


def test_a_deleted_thread_is_not_listed(saver: Any) -> None:
    write(saver, "g:a", "g:b")
    saver.delete_thread("g:a")
    assert [t.thread_id for t in saver.list_threads(prefix="g:")] == ["g:b"]


def test_odd_prefixes(saver: Any) -> None:
    write(saver, "g%_:x", "g%a:x", "é:1", "\U0010ffff:1")
    assert [t.thread_id for t in saver.list_threads(prefix="g%_")] == ["g%_:x"]  # % and _ are not patterns
    assert [t.thread_id for t in saver.list_threads(prefix="é")] == ["é:1"]
    assert [t.thread_id for t in saver.list_threads(prefix="\U0010ffff")] == ["\U0010ffff:1"]


def test_prefix_bounds() -> None:
    assert prefix_end("reminders:") == "reminders;"
    assert prefix_end("") is None
    assert prefix_end("a\U0010ffff") == "b"
    assert prefix_end("\ud7ff") == "\ue000"


class _Unlisting(BaseCheckpointSaver):
    """A saver that implements the contract but not the optional listing."""

    async def aget_tuple(self, config: Any) -> Any:
        return None

    async def alist(self, config: Any, **kwargs: Any) -> Any:
        return
        yield

    async def aput(self, *args: Any) -> Any:
        raise NotImplementedError

    async def aput_writes(self, *args: Any) -> None:
        raise NotImplementedError

    async def adelete_thread(self, thread_id: str) -> None:
        pass

    async def aprune(self, thread_id: str, **kwargs: Any) -> int:
        return 0


def test_the_default_says_listing_is_not_implemented() -> None:
    with pytest.raises(NotImplementedError, match="_Unlisting cannot list threads"):
        list(_Unlisting().list_threads(prefix="g:"))


def test_the_inspector_answers_501_for_a_saver_that_cannot_list() -> None:
    saver = _Unlisting()
    graphs = {"chain3": GraphEntry("chain3", "tests.graphs:chain3", chain3.compile(checkpointer=saver), "")}
    app = build_app(Reads(graphs, saver, max_history=10), RunHub())
    status, body = asyncio.run(_asgi_get(app, "/api/threads", b"graph=chain3"))
    assert status == 501
    assert b"UNIMPLEMENTED" in body and b"cannot list threads" in body


async def _asgi_get(app: Any, path: str, query: bytes) -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8080")], "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8080),
    }  # fmt: skip
    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])
