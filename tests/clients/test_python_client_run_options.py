"""RunOptions: a run's options as one frozen value, and keyword arguments as sugar over it.

The options are defined once (``graphwire.RunOptions``); every run method of
both clients takes ``options=`` and the same fields as keywords, which
override it. Checked on the wire, against the fake server of
test_python_client_fake_server.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect

import graphwire
import pytest
from graphwire import RunOptions
from graphwire_proto.v1 import graphwire_pb2 as pb

from tests.clients.test_python_client_fake_server import FakeGraphService, address, service  # noqa: F401 - fixtures

RUN_METHODS = ("invoke", "resume", "fork", "stream", "stream_resume", "stream_fork")


def test_a_value_is_frozen_and_varied_by_replace() -> None:
    base = RunOptions(durability="sync", event_kinds=(k for k in ["values"]), interrupt_before=["a"])
    assert base.event_kinds == ("values",)  # an iterator is taken once, so the value can be used again
    assert base.interrupt_before == ("a",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.enqueue = True  # type: ignore[misc]
    more = base.replace(enqueue=True, timeout=5.0)
    assert (more.durability, more.enqueue, more.timeout) == ("sync", True, 5.0)
    assert base.enqueue is False
    with pytest.raises(TypeError, match="unknown run option"):
        base.replace(kinds=["values"])


def test_the_run_methods_define_no_option_of_their_own() -> None:
    """Each takes options= and **overrides: RunOptions is the one place the options are defined."""
    fields = {f.name for f in dataclasses.fields(RunOptions)}
    for cls in (graphwire.Client, graphwire.AsyncClient):
        for name in RUN_METHODS:
            params = inspect.signature(getattr(cls, name)).parameters
            assert "options" in params and params["overrides"].kind is inspect.Parameter.VAR_KEYWORD
            assert not fields & set(params), (cls.__name__, name, fields & set(params))


def test_options_and_keywords_send_the_same_request(address: str, service: FakeGraphService) -> None:  # noqa: F811
    opts = RunOptions(event_kinds=["values"], enqueue=True, recursion_limit=7, durability="exit",
                      run_metadata={"who": "me"}, interrupt_before=["ask"], timeout=30)  # fmt: skip
    with graphwire.Client(address) as client:
        client.invoke("g", "t1", {"x": 1}, options=opts)
        client.invoke("g", "t1", {"x": 1}, event_kinds=["values"], enqueue=True, recursion_limit=7,
                      durability="exit", run_metadata={"who": "me"}, interrupt_before=["ask"], timeout=30)  # fmt: skip
        client.invoke("g", "t1", {"x": 1}, options=opts, durability="sync", enqueue=False)
        with pytest.raises(TypeError, match="unknown run option"):
            client.invoke("g", "t1", {"x": 1}, kinds=["values"])
    by_options, by_keywords, overridden = service.requests
    ids = {r.request_id for r in service.requests}
    assert len(ids) == 3 and all(len(i) == 36 for i in ids)  # a new UUID per logical call
    for request in service.requests:
        request.ClearField("request_id")
    assert by_options == by_keywords
    assert by_options.enqueue and by_options.config.recursion_limit == 7
    assert by_options.config.durability == pb.DURABILITY_EXIT
    assert list(by_options.config.interrupt_before) == ["ask"]
    assert list(by_options.event_kinds) == [pb.EVENT_KIND_VALUES]
    assert overridden.config.durability == pb.DURABILITY_SYNC and not overridden.enqueue
    assert overridden.config.recursion_limit == 7  # the rest of the value stays


def test_invoke_asks_for_the_first_and_last_events_unless_told(address: str, service: FakeGraphService) -> None:  # noqa: F811
    async def body() -> None:
        async with graphwire.AsyncClient(address) as client:
            await client.invoke("g", "t1", None, options=RunOptions(durability="sync"))
            await client.resume("g", "t1", "yes", options=RunOptions(event_kinds=["values"]))
            async for _ in client.stream("g", "t1", None, options=RunOptions(durability="sync")):
                pass

    asyncio.run(body())
    invoked, resumed, streamed = service.requests
    assert list(invoked.event_kinds) == [pb.EVENT_KIND_RUN_STARTED, pb.EVENT_KIND_RUN_FINISHED]
    assert list(resumed.event_kinds) == [pb.EVENT_KIND_VALUES]
    assert list(streamed.event_kinds) == []  # every kind
