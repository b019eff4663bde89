"""Threads and their versions over LangGraph's HTTP API, on SQLite and PostgreSQL, driven by ``langgraph-sdk``.

A thread's record (create with ``if_exists``, get, patch, search, count,
copy, delete), its state (update_state with ``as_node`` and a checkpoint,
get_state now and at a checkpoint) and its history (limit, before, metadata
filter). A thread a gRPC run left at an interrupt reads over HTTP as
LangGraph's server shows one: ``interrupted``, its interrupts keyed by task.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import BadRequestError, ConflictError, NotFoundError, UnprocessableEntityError

from tests.conftest import ServerProcess
from tests.http.conftest import GRAPHS, sync_client
from tests.server._langgraph_graphs import backend  # noqa: F401  (the fixture)


@pytest.fixture
def http_server(start_server: Callable[..., ServerProcess], backend: dict[str, Any]) -> ServerProcess:  # noqa: F811
    return start_server(graphs=GRAPHS, http=True, **backend)


def test_thread_records(http_server: ServerProcess) -> None:
    client = sync_client(http_server)
    team = uuid.uuid4().hex
    made = client.threads.create(graph_id="chain3", metadata={"team": team, "user": "ann"})
    tid = made["thread_id"]
    assert made["metadata"] == {"team": team, "user": "ann", "graph_id": "chain3"}
    # Never run: LangGraph's record has no interrupts nor error yet, an empty config, and its state's time is its creation's
    assert made["status"] == "idle" and made["values"] is None and "interrupts" not in made and "error" not in made
    assert made["config"] == {} and made["state_updated_at"] == made["created_at"]
    assert client.threads.get(tid)["created_at"] == made["created_at"]
    with pytest.raises(ConflictError):
        client.threads.create(thread_id=tid, graph_id="chain3")
    assert client.threads.create(thread_id=tid, graph_id="gated", if_exists="do_nothing")["metadata"]["graph_id"] == "chain3"
    assert client.threads.create(thread_id=tid, if_exists="do_nothing")["thread_id"] == tid  # no graph needed to find it
    patched = client.threads.update(tid, metadata={"user": "bob"})
    assert patched["metadata"] == {"team": team, "user": "bob", "graph_id": "chain3"} and patched["updated_at"] > made["updated_at"]
    assert patched["state_updated_at"] == made["created_at"]  # its metadata changed, not its state
    other_made = client.threads.create(graph_id="gated", metadata={"team": team}, ttl=90)
    other = other_made["thread_id"]
    assert other_made["ttl"] == {"ttl": 90, "strategy": "delete"}  # minutes, as LangGraph's
    assert client.threads.update(other, metadata={}, ttl={"ttl": 30, "strategy": "keep_latest"})["ttl"] == {"ttl": 30, "strategy": "keep_latest"}
    assert {t["thread_id"] for t in client.threads.search(metadata={"team": team})} == {tid, other}
    assert [t["thread_id"] for t in client.threads.search(metadata={"team": team, "user": "bob"})] == [tid]
    assert [t["thread_id"] for t in client.threads.search(metadata={"team": team}, sort_by="created_at", sort_order="asc", limit=1, offset=1)] == [other]
    assert client.threads.search(ids=[other], select=["thread_id", "status"]) == [{"thread_id": other, "status": "idle"}]
    assert client.threads.count(metadata={"team": team}) == 2
    assert client.threads.count(metadata={"team": team}, status="busy") == 0
    client.threads.delete(other)
    with pytest.raises(NotFoundError) as gone:
        client.threads.get(other)
    assert gone.value.body == {"detail": f"thread {other!r} not found"}
    assert client.threads.count(metadata={"team": team}) == 1


def test_state_history_copy(http_server: ServerProcess) -> None:
    client = sync_client(http_server)
    tid = client.threads.create(graph_id="chain3")["thread_id"]
    empty = client.threads.get_state(tid)  # no version yet: empty, as LangGraph's server reads it
    assert empty["values"] == {} and empty["next"] == [] and empty["checkpoint"]["checkpoint_id"] is None
    assert client.threads.get_history(tid) == []
    with pytest.raises(NotFoundError):
        client.threads.get_state(tid, checkpoint_id="1f1f0865-4bb3-6c93-a8b3-2953a67926b3")
    first = client.threads.update_state(tid, {"log": ["one"]}, as_node="a")["checkpoint"]
    assert first["thread_id"] == tid and first["checkpoint_ns"] == "" and first["checkpoint_id"]
    answer = client.threads.update_state(tid, {"log": ["two"]}, as_node="b")
    second = answer["checkpoint"]
    assert answer["configurable"] == second and answer["checkpoint_id"] == second["checkpoint_id"]  # as LangGraph's server
    assert client.threads.get(tid)["status"] == "interrupted"  # a node is due: LangGraph's server marks it so
    now = client.threads.get_state(tid)
    assert now["values"] == {"log": ["one", "two"]} and now["next"] == ["c"]
    assert now["checkpoint"]["checkpoint_id"] == second["checkpoint_id"]
    assert now["parent_checkpoint"]["checkpoint_id"] == first["checkpoint_id"] and now["metadata"]["source"] == "update"
    assert [t["name"] for t in now["tasks"]] == ["c"] and now["interrupts"] == []
    then = client.threads.get_state(tid, checkpoint_id=first["checkpoint_id"])
    assert then["values"] == {"log": ["one"]} and then["next"] == ["b"]
    assert client.threads.get_state(tid, checkpoint=first)["values"] == {"log": ["one"]}
    assert client.threads.get(tid)["values"] == {"log": ["one", "two"]}
    # A write on an older version: a branch from it (as LangGraph's update_state with a checkpoint).
    branch = client.threads.update_state(tid, {"log": ["other"]}, as_node="a", checkpoint=first)["checkpoint"]
    assert client.threads.get_state(tid)["values"] == {"log": ["one", "other"]}
    history = client.threads.get_history(tid)
    assert [h["checkpoint"]["checkpoint_id"] for h in history] == [branch["checkpoint_id"], second["checkpoint_id"], first["checkpoint_id"]]
    assert [h["checkpoint"]["checkpoint_id"] for h in client.threads.get_history(tid, limit=1)] == [branch["checkpoint_id"]]
    older = client.threads.get_history(tid, before=second)
    assert [h["checkpoint"]["checkpoint_id"] for h in older] == [first["checkpoint_id"]]
    as_config = client.threads.get_history(tid, before={"configurable": {"checkpoint_id": second["checkpoint_id"]}})  # LangGraph's form
    assert [h["checkpoint"]["checkpoint_id"] for h in as_config] == [first["checkpoint_id"]]
    assert len(client.threads.get_history(tid, metadata={"source": "update"})) == 3
    assert client.threads.get_history(tid, metadata={"source": "loop"}) == []
    with pytest.raises(UnprocessableEntityError) as zero:
        client.http.get(f"/threads/{tid}/history", params={"limit": 0})
    assert zero.value.body["detail"].startswith("query.limit: ")
    got = client.http.get(f"/threads/{tid}/history", params={"limit": 2})
    assert [h["checkpoint"]["checkpoint_id"] for h in got] == [branch["checkpoint_id"], second["checkpoint_id"]]
    copy = client.threads.copy(tid)
    assert copy["thread_id"] != tid and copy["metadata"]["graph_id"] == "chain3"
    assert client.threads.get_state(copy["thread_id"])["values"] == {"log": ["one", "other"]}
    assert len(client.threads.get_history(copy["thread_id"])) == 3
    with pytest.raises(BadRequestError) as bad_node:  # the graph refuses it: 400, as LangGraph's server answers
        client.threads.update_state(tid, {"log": ["x"]}, as_node="nowhere")
    assert "as_node" in bad_node.value.body["detail"]
    done = client.threads.create(graph_id="chain3")["thread_id"]
    client.threads.update_state(done, {"log": ["last"]}, as_node="c")  # nothing due after it
    assert client.threads.get_state(done)["next"] == [] and client.threads.get(done)["status"] == "idle"


def test_interrupted_thread_from_a_grpc_run(http_server: ServerProcess) -> None:
    tid = f"q-{uuid.uuid4().hex[:8]}"
    with http_server.client() as grpc_client:
        grpc_client.invoke("questions", tid, {"log": []}, timeout=30)
    client = sync_client(http_server)
    thread = client.threads.get(tid)
    assert thread["status"] == "interrupted"
    (task_id, pending), = thread["interrupts"].items()
    assert [i["value"] for i in pending] == ["first?"] and pending[0]["id"]
    state = client.threads.get_state(tid)
    assert state["next"] == ["ask"] and [t["id"] for t in state["tasks"]] == [task_id]
    assert state["tasks"][0]["interrupts"] == pending and state["interrupts"] == pending
    assert [t["thread_id"] for t in client.threads.search(ids=[tid], status="interrupted")] == [tid]


def test_graph_of_a_new_thread(http_server: ServerProcess) -> None:
    client = sync_client(http_server)
    with pytest.raises(NotFoundError) as unknown:
        client.threads.create(graph_id="nowhere")
    assert "unknown graph 'nowhere'" in unknown.value.body["detail"]
    with pytest.raises(UnprocessableEntityError) as moved:
        tid = client.threads.create(graph_id="chain3")["thread_id"]
        client.threads.update(tid, metadata={"graph_id": "gated"})
    assert moved.value.body["detail"].startswith("metadata.graph_id: ")


def test_a_run_labels_its_thread_with_its_graph_and_assistant(http_server: ServerProcess) -> None:
    """As LangGraph's server: a thread records the graph and assistant its latest run was made with
    (metadata ``graph_id``, ``assistant_id``), which clients search threads by (agent-chat-ui lists
    a UUID assistant's threads by ``assistant_id``, a graph's by ``graph_id``)."""
    client = sync_client(http_server)
    default = client.assistants.search(graph_id="chain3", metadata={"created_by": "system"})[0]["assistant_id"]
    mine = client.assistants.create("chain3", name=f"mine-{uuid.uuid4().hex[:6]}")["assistant_id"]
    tid = client.threads.create(graph_id="chain3", metadata={"user": "ann"})["thread_id"]
    assert "assistant_id" not in client.threads.get(tid)["metadata"]
    client.runs.wait(tid, "chain3", input={"n": 0})  # a graph's name: its default assistant
    assert client.threads.get(tid)["metadata"] == {"user": "ann", "graph_id": "chain3", "assistant_id": default}
    assert tid in {t["thread_id"] for t in client.threads.search(metadata={"assistant_id": default}, limit=1000)}
    client.runs.wait(tid, mine, input={"n": 0})
    assert client.threads.get(tid)["metadata"]["assistant_id"] == mine
    assert [t["thread_id"] for t in client.threads.search(metadata={"assistant_id": mine})] == [tid]
    # a thread the run makes (if_not_exists="create") is labelled likewise
    new = str(uuid.uuid4())
    client.runs.wait(new, mine, input={"n": 0}, if_not_exists="create", metadata={"team": "blue"}, config={"metadata": {"user": "cy"}})
    assert client.threads.get(new)["metadata"] == {"user": "cy", "team": "blue", "graph_id": "chain3", "assistant_id": mine}
    # a run refused before it starts labels nothing and makes no thread
    with pytest.raises(httpx.HTTPStatusError) as refused:  # (the SDK's runs.wait raises httpx's own error)
        client.runs.wait(str(uuid.uuid4()), "nobody-" + uuid.uuid4().hex, input={"n": 0}, if_not_exists="create")
    assert refused.value.response.status_code == 404
    assert client.threads.count(metadata={"assistant_id": mine}) == 2


def test_a_thread_made_without_a_graph_takes_its_first_runs(http_server: ServerProcess) -> None:
    """As LangGraph's server: ``threads.create()`` names no graph (its SDKs' usual first call, useStream's
    too); on a server of several graphs the thread's first run binds it to its assistant's graph."""
    client = sync_client(http_server)
    made = client.threads.create(metadata={"user": "ann"})
    tid = made["thread_id"]
    assert made["metadata"] == {"user": "ann"} and made["status"] == "idle"
    assert client.threads.get_state(tid)["values"] == {} and client.threads.get_history(tid) == []
    with pytest.raises(httpx.HTTPStatusError) as no_graph:
        client.threads.update_state(tid, {"n": 1})
    assert no_graph.value.response.status_code == 400 and "has no graph yet" in no_graph.value.response.json()["detail"]
    other = "chain3"  # not the server's first graph (sorted): the thread moves to it
    assert client.runs.wait(tid, other, input={"n": 0})["n"] == 3
    shown = client.threads.get(tid)
    assert shown["metadata"]["graph_id"] == other and shown["metadata"]["user"] == "ann" and "__graphwire_unbound__" not in shown["metadata"]
    assert client.threads.get_state(tid)["values"]["n"] == 3
    assert client.runs.wait(tid, other, input={"n": 10})["n"] == 13  # a later turn
    with pytest.raises(ConflictError):  # bound now: another graph's assistant is refused, as for any thread
        client.runs.create(tid, "gated", input={"label": "x"})
    first = sorted(GRAPHS)[0]  # a thread kept under the first graph, and run by it, stays there
    assert first == "bulky"
    kept = client.threads.create()["thread_id"]
    assert client.threads.get(kept)["metadata"] == {}
    assert client.runs.wait(kept, first, input={"size": 1})["n"] == 3
    assert client.threads.get(kept)["metadata"]["graph_id"] == first and "__graphwire_unbound__" not in client.threads.get(kept)["metadata"]
    with pytest.raises(ConflictError):
        client.runs.create(kept, "chain3", input={"n": 0})
    # named by a PATCH of metadata.graph_id instead, as LangGraph's server allows; once only
    patched = client.threads.create(metadata={"user": "bob"})["thread_id"]
    assert client.threads.update(patched, metadata={"graph_id": "gated"})["metadata"] == {"user": "bob", "graph_id": "gated"}
    assert client.threads.get(patched)["metadata"]["graph_id"] == "gated"
    with pytest.raises(UnprocessableEntityError):
        client.threads.update(patched, metadata={"graph_id": "chain3"})


def test_a_subgraphs_version_updated_through_the_checkpoint_its_task_names(http_server: ServerProcess) -> None:
    # As LangGraph's server: update_state with the checkpoint get_state(subgraphs=True) gives a subgraph
    # task writes the subgraph's version (it was taken as the graph's own, whose ids it does not name: 404).
    client = sync_client(http_server)
    tid = client.threads.create()["thread_id"]
    asked = client.runs.wait(tid, "questions_team", input={"log": []})
    assert [i["value"] for i in asked["__interrupt__"]] == ["first?"]
    sub = client.threads.get_state(tid, subgraphs=True)["tasks"][0]["state"]
    ns = sub["checkpoint"]["checkpoint_ns"]
    assert ns.startswith("team:") and sub["next"] == ["ask"]
    made = client.threads.update_state(tid, {"log": ["edited"]}, checkpoint=sub["checkpoint"])
    assert made["checkpoint"]["checkpoint_ns"] == ns and made["checkpoint"]["checkpoint_id"] != sub["checkpoint"]["checkpoint_id"]
    after = client.threads.get_state(tid, checkpoint=made["checkpoint"])
    assert after["values"] == {"log": ["edited"]} and after["next"] == ["ask"]
    assert client.threads.get_state(tid)["values"] == {"log": []}  # the graph's own version is as it was
    assert client.threads.get(tid)["status"] == "interrupted"
    # The question is asked again in the updated version; the answer the thread is given takes it.
    again = client.runs.wait(tid, "questions_team", command={"resume": "yes"})
    assert [i["value"] for i in again["__interrupt__"]] == ["second?"]
    with pytest.raises(NotFoundError):
        client.threads.update_state(tid, {"log": ["x"]}, checkpoint={"checkpoint_ns": "team:" + "0" * 32, "checkpoint_id": made["checkpoint_id"]})
    # Over gRPC (the Python client): checkpoint_ns, kept once by its request_id as the graph's own updates are.
    sub_now = client.threads.get_state(tid, subgraphs=True)["tasks"][0]["state"]["checkpoint"]
    with http_server.client() as grpc_client:
        first, retried = (
            grpc_client.update_state("questions_team", tid, {"log": ["once"]}, checkpoint_ns=sub_now["checkpoint_ns"], request_id="once")
            for _ in range(2)
        )
    assert first.checkpoint_id == retried.checkpoint_id != sub_now["checkpoint_id"]
    assert client.threads.get_state(tid, checkpoint={**sub_now, "checkpoint_id": first.checkpoint_id})["values"]["log"][-1:] == ["once"]


def test_an_update_with_no_values_records_the_node_as_run(http_server: ServerProcess) -> None:
    """LangGraph's update_state(config, None, as_node): no writes, a version made as that node (its next nodes due)."""
    client = sync_client(http_server)
    tid = client.threads.create(graph_id="chain3")["thread_id"]
    client.runs.wait(tid, "chain3", input={"n": 1}, interrupt_after=["a"])
    before = client.threads.get_state(tid)
    assert before["next"] == ["b"]
    made = client.threads.update_state(tid, None, as_node="b")
    after = client.threads.get_state(tid)
    assert after["checkpoint"]["checkpoint_id"] == made["checkpoint"]["checkpoint_id"] != before["checkpoint"]["checkpoint_id"]
    assert after["values"] == before["values"] and after["next"] == ["c"] and after["metadata"]["source"] == "update"
