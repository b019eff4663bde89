"""The assistants runs name, kept while every change to them is heard (server/_assistant_cache.py).

In process, on PostgreSQL: a run's assistant is read once while the relay
listens, read again after a change made here, one made through another
saver on the same schema (as another replica would, heard through its
announcement), and at every run while the relay does not listen. The
replicas' side (two server processes) is tests/replicas/test_assistants_across_replicas.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from engine.checkpoint.postgres import PostgresSaver
from engine.host import default_assistant_id
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._assistant_cache import AssistantCache
from server._assistant_rpcs import AssistantRpcs
from server._cancel import CancelRelay
from server._runs import RunManager
from tests.checkpoint._pg import DSN, pg_dsn, pg_schema  # noqa: F401 - fixtures

DEADLINE = 30.0


class Reads:
    """Counts a store's ``aget`` calls (the real store answers each)."""

    def __init__(self, store: Any) -> None:
        self.count = 0
        real = store.aget

        async def aget(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await real(*args, **kwargs)

        store.aget = aget


async def _who(rpcs: AssistantRpcs) -> Any:
    """The configurable a run naming graph ``g`` (its default assistant) gets."""
    resolved = await rpcs.resolve(pb.InvokeRequest(thread_id="t", assistant_id="g"))
    return json.loads(resolved.config.configurable_json or "{}").get("who")


async def _until(condition: Any, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def test_a_runs_assistant_is_read_once_while_every_change_is_heard(pg_schema: str) -> None:
    asyncio.run(_read_once(pg_schema))


async def _read_once(schema: str) -> None:
    here, there = PostgresSaver.from_dsn(DSN, schema=schema), PostgresSaver.from_dsn(DSN, schema=schema)
    relay = CancelRelay(here.messages, RunManager(None), "replica-here")
    cache = AssistantCache()
    heard: list[Any] = []  # the announcements the relay handed the cache, in order
    message = cache.message

    def counted(body: Any) -> None:
        heard.append(body)
        message(body)

    cache.message = counted  # type: ignore[method-assign]
    relay.watch("assistants", cache)
    rpcs = AssistantRpcs(here.assistants, lambda: ["g"], max_response_bytes=1 << 20, cache=cache)
    reads = Reads(here.assistants)
    await rpcs.ensure_defaults()
    try:
        # Not listening yet: announcements could be missed, so every run reads.
        assert [await _who(rpcs), await _who(rpcs)] == [None, None] and reads.count == 2
        await relay.start()
        assert [await _who(rpcs) for _ in range(3)] == [None] * 3 and reads.count == 3  # read once, then kept
        # A change made here: the next run reads it (no announcement awaited).
        await rpcs.UpdateAssistant(pb.UpdateAssistantRequest(assistant_id=default_assistant_id("g"), config_json='{"configurable": {"who": "here"}}'), None)
        assert await _who(rpcs) == "here" and reads.count == 5  # the update's own read, then the run's
        # Its own announcement comes back too, before or after that read, and forgets again: once it is
        # heard, what comes next is another's.
        await _until(lambda: len(heard) == 1, "this change's own announcement")
        assert await _who(rpcs) == "here"
        base = reads.count
        # A change made by another process on the schema: heard when its transaction commits.
        now = (await there.assistants.aget("", default_assistant_id("g"))).updated_at
        await there.assistants.aupdate("", default_assistant_id("g"), {"config": {"configurable": {"who": "there"}}}, now)
        await _until(lambda: len(heard) == 2, "the announcement")
        assert await _who(rpcs) == "there" and reads.count == base + 1
        assert await _who(rpcs) == "there" and reads.count == base + 1  # kept
        # Deleted elsewhere: the next run does not find it.
        epoch = cache.epoch
        assert await there.assistants.adelete("", default_assistant_id("g")) is True
        await _until(lambda: cache.epoch != epoch, "the deletion's announcement")
        with pytest.raises(Exception, match="no assistant"):
            await _who(rpcs)
        await rpcs.ensure_defaults()
        # Stopped listening: every run reads again.
        await relay.stop()
        before = reads.count
        assert [await _who(rpcs), await _who(rpcs)] == [None, None] and reads.count == before + 2
    finally:
        await relay.stop()
        for saver in (here, there):
            await saver.aclose()


def test_a_read_begun_before_a_change_is_not_kept() -> None:
    cache = AssistantCache()
    cache.listening(True)
    record: Any = object()
    epoch = cache.epoch
    cache.message({"kind": "assistants"})  # a change heard while the read was under way
    cache.keep("", "a", record, epoch)
    assert cache.get("", "a") is None
    cache.keep("", "a", record, cache.epoch)
    assert cache.get("", "a") is record
    cache.listening(False)  # the relay lost its connection: nothing kept, nothing used
    assert cache.get("", "a") is None
    cache.keep("", "a", record, cache.epoch)
    assert cache.get("", "a") is None


def test_a_record_is_used_for_max_age_seconds_at_most() -> None:
    cache = AssistantCache(max_age=0.0)
    cache.listening(True)
    cache.keep("", "a", object(), cache.epoch)  # type: ignore[arg-type]
    assert cache.get("", "a") is None  # older than 0 s by the next look
