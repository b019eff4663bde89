"""``configurable`` over the wire, and the caller's thread id inside the graph (issue 32, items 3 and 4).

A real server serves ``tests.configurable_graph`` (a node, a chat model with a
configurable field and a ``ToolNode`` tool that each report what they see of
the run's config). A run's ``configurable`` reaches all three, on Invoke,
Resume-free Fork and UpdateState; the keys the service owns are refused
naming the key; a retried Invoke keeps its configurable; the thread id each
sees, the stream's chunk metadata, reads and listings carry the caller's id
while the rows keep the storage key ("graph:thread").
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import grpc
import pytest
from graphwire import FinishReason, InvalidArgument, MessageChunk, ResourceExhausted
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from engine.host import MAX_METADATA_BYTES

pytest.importorskip("langchain_core")

GRAPHS = {"seen": "tests.configurable_graph:graph", "also": "tests.configurable_graph:graph"}
HI = {"messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import start_server_process

    server = start_server_process(tmp_path_factory.mktemp("configurable"), graphs=GRAPHS)
    yield server
    assert server.terminate() == 0, server.log()


def _tool_said(values: dict[str, Any]) -> dict[str, Any]:
    said: dict[str, Any] = json.loads(values["messages"][-1]["content"])
    return said


def test_configurable_reaches_node_tool_and_chat_model(srv: Any) -> None:
    conf = {"user_id": "u-1", "model": "small", "flags": {"beta": True}, "replies": ["hello from config"]}
    with srv.client() as client:
        chunks: list[MessageChunk] = []
        with client.stream("seen", "user-7", HI, configurable=conf, event_kinds=["message_chunk", "values"]) as run:
            chunks = [e for e in run if isinstance(e, MessageChunk)]
            result = run.result()
    values = result.values
    assert values["seen"] == [{"where": "node", "thread_id": "user-7", "user_id": "u-1", "model": "small", "flags": {"beta": True}}]
    assert values["messages"][1]["content"] == "hello from config"  # the chat model's configurable field
    assert _tool_said(values) == {"thread_id": "user-7", "user_id": "u-1", "model": "small", "flags": {"beta": True}}
    assert chunks and {c.metadata.get("thread_id") for c in chunks} == {"user-7"}  # the stream's metadata too


def test_a_caller_taking_every_event_kind_gets_the_tool_run_without_its_tools_events(srv: Any) -> None:
    # The engine's tool-call events (stream mode "tools") have no wire form: a run asked for every
    # kind (event_kinds unset) must not make them (engine.events.NAMED_ONLY), or the stream would fail.
    with srv.client() as client:
        with client.stream("seen", "all-kinds", HI, configurable={"replies": ["ok"]}) as run:
            kinds = {type(e).__name__ for e in run}
            result = run.result()
    assert result.reason is FinishReason.END
    assert _tool_said(result.values)["thread_id"] == "all-kinds"
    assert {"TaskFinished", "MessageChunk", "RunFinished"} <= kinds


def test_each_run_has_its_own_configurable(srv: Any) -> None:
    with srv.client() as client:
        first = client.invoke("seen", "own-1", HI, configurable={"user_id": "a"})
        second = client.invoke("seen", "own-1", HI)
    assert first.values["seen"] == [{"where": "node", "thread_id": "own-1", "user_id": "a"}]
    assert second.values["seen"][-1] == {"where": "node", "thread_id": "own-1"}  # nothing carried over
    assert second.values["messages"][-2]["content"] == "no replies configured"


def test_plain_values_land_in_version_metadata_as_langgraph(srv: Any) -> None:
    with srv.client() as client:
        client.invoke("seen", "meta-1", HI, configurable={"user_id": "m-1", "flags": {"x": 1}})
        found = client.history("seen", "meta-1", filter={"user_id": "m-1"})
    assert found and all(s.metadata["user_id"] == "m-1" for s in found)
    assert all("flags" not in s.metadata and "thread_id" not in s.metadata for s in found)


def test_fork_and_update_state_take_configurable(srv: Any) -> None:
    with srv.client() as client:
        client.invoke("seen", "fork-1", HI, configurable={"user_id": "first"})
        root = client.history("seen", "fork-1")[-1].checkpoint.checkpoint_id
        forked = client.fork("seen", "fork-1", root, configurable={"user_id": "forked", "replies": ["again"]})
        assert _tool_said(forked.values)["user_id"] == "forked"
        assert forked.values["messages"][-2]["content"] == "again"
        # A router reads it too: skip_model ends the run after look.
        skipped = client.invoke("seen", "skip-1", HI, configurable={"skip_model": True})
        assert [m["content"] for m in skipped.values["messages"]] == ["hi"]
        # An update as look runs look's router with the update's configurable.
        client.update_state("seen", "upd-1", {"seen": []}, as_node="look", configurable={"skip_model": True})
        assert client.get_state("seen", "upd-1").next == ()
        client.update_state("seen", "upd-2", {"seen": []}, as_node="look")
        assert client.get_state("seen", "upd-2").next == ("model",)
        # An update's plain values are in its version's metadata, as LangGraph's.
        ref = client.update_state("seen", "fork-1", {"seen": []}, as_node="tools", configurable={"user_id": "updater"})
        newest = client.history("seen", "fork-1", limit=1)[0]
        assert newest.checkpoint.checkpoint_id == ref.checkpoint_id and newest.metadata["user_id"] == "updater"


RESERVED = ["thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "__pregel_runtime", "__lease__", "__anything"]


@pytest.mark.parametrize("key", RESERVED)
def test_reserved_keys_are_refused_naming_the_key(srv: Any, key: str) -> None:
    with srv.client(retry=False) as client:
        with pytest.raises(InvalidArgument, match=rf"config\.configurable_json\.{key}: .*{key!r}"):
            client.invoke("seen", "reserved-1", HI, configurable={key: "x"})
        with pytest.raises(InvalidArgument, match=rf"config\.configurable_json\.{key}:"):
            client.resume("seen", "reserved-1", "yes", configurable={"ok": 1, key: "x"})
        with pytest.raises(InvalidArgument, match=rf"config\.configurable_json\.{key}:"):
            client.fork("seen", "reserved-1", "some-id", configurable={key: "x"})
        with pytest.raises(InvalidArgument, match=rf"INVALID_ARGUMENT: configurable_json\.{key}:"):
            client.update_state("seen", "reserved-1", {"seen": []}, as_node="tools", configurable={key: "x"})
        assert client.history("seen", "reserved-1") == []  # nothing ran, nothing was written


def test_not_an_object_and_too_large(srv: Any) -> None:
    stub = pb_grpc.GraphServiceStub(srv.channel())
    for text, code, words in (
        ("[1, 2]", grpc.StatusCode.INVALID_ARGUMENT, "config.configurable_json: must be a JSON object"),
        ("{nope", grpc.StatusCode.INVALID_ARGUMENT, "config.configurable_json: not valid JSON"),
        (json.dumps({"big": "x" * MAX_METADATA_BYTES}), grpc.StatusCode.RESOURCE_EXHAUSTED, "config.configurable_json:"),
    ):
        request = pb.InvokeRequest(graph="seen", thread_id="bad-1", input_json=json.dumps(HI), config=pb.RunConfig(configurable_json=text))
        with pytest.raises(grpc.RpcError) as caught:
            list(stub.Invoke(request, timeout=30))
        assert caught.value.code() == code and words in caught.value.details()
    with srv.client(retry=False) as client, pytest.raises(ResourceExhausted):
        client.update_state("seen", "bad-1", {"seen": []}, configurable={"big": "x" * MAX_METADATA_BYTES})


def test_a_retried_invoke_keeps_its_configurable(srv: Any) -> None:
    with srv.client(retry=False) as client:
        first = client.invoke("seen", "retry-1", HI, configurable={"user_id": "r-1"}, request_id="req-retry-1")
        again = client.invoke("seen", "retry-1", HI, configurable={"user_id": "r-1"}, request_id="req-retry-1")
        assert again.run_id == first.run_id  # the same call: answered from its run, not run twice
        assert again.values["seen"] == first.values["seen"] == [{"where": "node", "thread_id": "retry-1", "user_id": "r-1"}]
        with pytest.raises(InvalidArgument, match="request_id: 'req-retry-1' was used by a different request"):
            client.invoke("seen", "retry-1", HI, configurable={"user_id": "someone else"}, request_id="req-retry-1")
        assert len(client.history("seen", "retry-1")) == len(client.history("seen", "retry-1", filter={"user_id": "r-1"}))


def test_reads_show_the_callers_thread_id_and_graphs_stay_apart(srv: Any) -> None:
    with srv.client() as client:
        a = client.invoke("seen", "shared", HI, configurable={"user_id": "in-seen"})
        b = client.invoke("also", "shared", HI, configurable={"user_id": "in-also"})
        assert a.values["seen"][0]["user_id"] == "in-seen" and b.values["seen"][0]["user_id"] == "in-also"
        assert len(b.values["seen"]) == 1  # another graph's thread of the same id is another thread
        state = client.get_state("seen", "shared")
        assert state.values["seen"][0]["thread_id"] == "shared"
        client.delete_thread("also", "shared")
        assert client.get_state("seen", "shared").values["seen"] == a.values["seen"]
    # The rows keep the storage key they always had (existing databases keep working).
    with sqlite3.connect(srv.db) as db:
        keys = {row[0] for row in db.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert "seen:shared" in keys and "also:shared" not in keys and "shared" not in keys


def _cli(srv: Any, *args: str, stdin: str = "") -> Any:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHWIRE_AUTH_TOKEN", "GRAPHWIRE_ADDRESS", "GRAPHWIRE_CONFIG")}
    env["PYTHONPATH"] = str(root)
    return subprocess.run(
        [sys.executable, "-m", "server", *args, "--address", srv.address],
        input=stdin, capture_output=True, text=True, cwd=srv.log_path.parent, env=env, timeout=60,
    )  # fmt: skip


def test_the_cli_sends_configurable(srv: Any) -> None:
    chat = _cli(srv, "chat", "--graph", "seen", "--thread", "cli-1", "--configurable", '{"user_id": "cli-user"}', stdin="hi\n")
    assert chat.returncode == 0, chat.stderr
    with srv.client() as client:
        state = client.get_state("seen", "cli-1")
        assert state.values["seen"] == [{"where": "node", "thread_id": "cli-1", "user_id": "cli-user"}]
        root = client.history("seen", "cli-1")[-1].checkpoint.checkpoint_id
    fork = _cli(srv, "fork", "--graph", "seen", "cli-1", root, "--configurable", '{"user_id": "cli-fork"}')
    assert fork.returncode == 0, fork.stderr
    with srv.client() as client:
        assert _tool_said(client.get_state("seen", "cli-1").values)["user_id"] == "cli-fork"
    refused = _cli(srv, "chat", "--graph", "seen", "--thread", "cli-2", "--configurable", '{"thread_id": "x"}', stdin="hi\n")
    assert "[error INVALID_ARGUMENT: config.configurable_json.thread_id:" in refused.stdout
    for text, why in (("{nope", "not JSON"), ("[1]", "must be a JSON object, not list")):
        bad = _cli(srv, "chat", "--graph", "seen", "--configurable", text)
        assert bad.returncode == 2 and f"argument --configurable: {why}" in bad.stderr, bad.stderr
