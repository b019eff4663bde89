"""Runs made through LangGraph's HTTP API run and read back as LangGraph's server has them, through ``langgraph-sdk``.

* ``command={"resume": ...}`` is LangGraph's ``Command(resume=...)``: with no interrupt pending the
  thread goes on from its version (a static breakpoint's next nodes run; an answer sent twice runs
  nothing the second time) where graphwire's gRPC Resume is FAILED_PRECONDITION, which stays so.
* A run's record shows what its call gave (``Run.assistant_id``, ``metadata``, ``multitask_strategy``,
  ``kwargs``) for every run, not only those that keep their events.

What LangGraph's server answers was observed on ``langgraph dev`` (langgraph-api 0.16.7) with the same
SDK calls (bench/http_vs_langgraph_dev.py compares whole programs).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from engine.errors import InvalidResumeError
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._run_api import run_events
from server._tenants import TENANT
from tests.http._serving import serving
from tests.http.test_sse import INPUT
from tests.http.test_runs import in_loop, made


@in_loop
async def test_a_static_breakpoint_goes_on_with_command_resume(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        paused = await client.runs.wait(thread, "chain3", input={"n": 0}, interrupt_before=["b"])
        assert paused == {"n": 1, "log": ["a"]}
        state = await client.threads.get_state(thread)
        assert state["next"] == ["b"] and state["interrupts"] == []
        assert [(t["name"], t["path"]) for t in state["tasks"]] == [("b", ["__pregel_pull", "b"])]  # as LangGraph's server
        history = await client.threads.get_history(thread)
        # gRPC's Resume answers an interrupt, and there is none: refused (FAILED_PRECONDITION), nothing written.
        tenant = TENANT.set("acme")  # the client's token's tenant
        try:
            with pytest.raises(InvalidResumeError):
                async for _ in run_events(served.service, pb.ResumeRequest(graph="chain3", thread_id=thread, resume_json="1")):
                    pass
        finally:
            TENANT.reset(tenant)
        assert await client.threads.get_history(thread) == history
        # LangGraph's server runs the Command: the thread goes on from its breakpoint.
        done = await client.runs.wait(thread, "chain3", command={"resume": 1})
        assert done == {"n": 3, "log": ["a", "b", "c"]}
        after = await client.threads.get_history(thread)
        assert [v["metadata"]["step"] for v in after[: len(after) - len(history)]] == [3, 2]
        # Sent again (a double click), it runs nothing: the thread's state, as LangGraph's server answers.
        again = await client.runs.wait(thread, "chain3", command={"resume": 1})
        assert again == done
        assert (await client.threads.get_state(thread))["values"] == done
        runs = await client.runs.list(thread)
        assert [r["status"] for r in runs] == ["success"] * 3


@in_loop
async def test_an_interrupt_answered_twice_is_answered_once(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "sse")
        asked = await client.runs.wait(thread, "sse", input=INPUT)
        (question,) = asked["__interrupt__"]
        # Two answers at once, by interrupt id: the thread queues the second (LangGraph's default "enqueue").
        first, second = await asyncio.gather(
            client.runs.wait(thread, "sse", command={"resume": {question["id"]: "yes"}}),
            client.runs.wait(thread, "sse", command={"resume": {question["id"]: "no"}}),
        )
        # One answer went in; the other found the question answered and ran nothing, answering the same state.
        assert first == second and "__interrupt__" not in first
        log = (await client.threads.get_state(thread))["values"]["log"]
        assert log == first["log"] and log[: len(asked["log"])] == asked["log"]
        assert [x for x in log if x in ("yes", "no")] in (["yes"], ["no"])


@in_loop
async def test_a_runs_record_shows_its_assistant_metadata_strategy_and_arguments(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        bot = await client.assistants.create("chain3", config={"configurable": {"model": "small"}, "tags": ["bot"]}, name="bot")
        thread = await made(client, "chain3")
        await client.runs.wait(
            thread, bot["assistant_id"], input={"n": 0}, metadata={"user": "ann"}, multitask_strategy="interrupt",
            config={"configurable": {"temperature": 0}}, interrupt_before=["c"], durability="exit",
        )  # fmt: skip
        parts = [p async for p in client.runs.stream(thread, "chain3", command={"resume": "go"}, stream_mode="values")]
        streamed_id = parts[0].data["run_id"]
        streamed, waited = await client.runs.list(thread)  # newest first
        assert streamed["run_id"] == streamed_id
        assert waited["assistant_id"] == bot["assistant_id"]
        assert waited["metadata"] == {"graph_id": "chain3", "assistant_id": bot["assistant_id"], "user": "ann"}
        assert waited["multitask_strategy"] == "interrupt"
        kwargs = waited["kwargs"]
        assert kwargs["input"] == {"n": 0} and kwargs["command"] is None
        assert kwargs["config"]["configurable"] == {"model": "small", "temperature": 0}  # the assistant's with the call's
        assert kwargs["config"]["tags"] == ["bot"] and kwargs["interrupt_before"] == ["c"]
        assert (kwargs["durability"], kwargs["checkpoint_during"]) == ("exit", False)
        assert await client.runs.get(thread, waited["run_id"]) == waited
        # The graph's name stands for its default assistant; LangGraph's default strategy is "enqueue".
        assert streamed["assistant_id"] == (await client.assistants.search(graph_id="chain3", metadata={"created_by": "system"}))[0]["assistant_id"]
        assert (streamed["multitask_strategy"], streamed["kwargs"]["command"], streamed["kwargs"]["input"]) == ("enqueue", {"resume": "go"}, None)
        # No durability given: the default the run ran with, as LangGraph's server shows it.
        assert (streamed["kwargs"]["durability"], streamed["kwargs"]["checkpoint_during"]) == ("async", True)
        assert streamed["metadata"]["graph_id"] == "chain3" and streamed["langsmith_session_name"] is None


@in_loop
async def test_a_later_turns_input_version_shows_the_threads_state(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        before = await client.runs.wait(thread, "chain3", input={"n": 0})
        for mode in ("checkpoints", "debug"):
            parts = [p async for p in client.runs.stream(thread, "chain3", input={"n": 10}, stream_mode=mode)]
            versions = [p.data if mode == "checkpoints" else p.data["payload"] for p in parts
                        if p.event == mode and (mode == "checkpoints" or p.data["type"] == "checkpoint")]  # fmt: skip
            # As LangGraph shows it: the version the input made holds the thread's state before the input.
            assert versions[0]["metadata"]["source"] == "input" and versions[0]["values"] == before
            assert versions[1]["values"]["n"] == 10
            before = versions[-1]["values"]


@in_loop
async def test_a_new_threads_input_version_shows_the_graphs_empty_channels(tmp_path: Path) -> None:
    """As LangGraph shows it (in process and on its server): the version a new thread's input makes
    holds each channel's empty value (``[]`` for a list a reducer grows), on both runtimes."""
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        for graph, given, empty in (("chain3", {"n": 0}, {"log": []}), ("sse", INPUT, {"messages": [], "log": []})):
            for mode in ("checkpoints", "debug"):
                thread = await made(client, graph)
                parts = [p async for p in client.runs.stream(thread, graph, input=given, stream_mode=mode)]
                versions = [p.data if mode == "checkpoints" else p.data["payload"] for p in parts
                            if p.event == mode and (mode == "checkpoints" or p.data["type"] == "checkpoint")]  # fmt: skip
                assert (versions[0]["metadata"]["source"], versions[0]["values"]) == ("input", empty), (graph, mode)
                assert versions[1]["values"] != empty


@in_loop
async def test_a_versions_metadata_names_its_thread_and_a_subgraphs_state_the_versions_above(tmp_path: Path) -> None:
    """As LangGraph's server shows them (langgraph dev, bench/http_vs_langgraph_dev.py): every version's
    metadata has ``thread_id``; a subgraph's state (``subgraphs=true``) has its ``checkpoint_ns`` and the
    versions above it (``checkpoint_map``) in its metadata, and its checkpoints carry the whole map."""
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "nested")
        await client.runs.wait(thread, "nested", input=INPUT)  # stops at the subgraph's interrupt
        state = await client.threads.get_state(thread, subgraphs=True)
        assert state["metadata"]["thread_id"] == thread and "checkpoint_map" not in state["checkpoint"]
        (task,) = state["tasks"]
        sub, ns, root = task["state"], task["state"]["checkpoint"]["checkpoint_ns"], state["checkpoint"]["checkpoint_id"]
        assert ns.startswith("checks:") and sub["interrupts"]
        assert sub["checkpoint"]["checkpoint_map"] == {"": root, ns: sub["checkpoint"]["checkpoint_id"]}
        assert sub["parent_checkpoint"]["checkpoint_map"] == {"": root, ns: sub["parent_checkpoint"]["checkpoint_id"]}
        assert {k: sub["metadata"][k] for k in ("thread_id", "checkpoint_ns", "checkpoint_map")} == {
            "thread_id": thread, "checkpoint_ns": ns, "checkpoint_map": {"": root},
        }  # fmt: skip
        history = await client.threads.get_history(thread)
        assert history and all(v["metadata"]["thread_id"] == thread for v in history)


@in_loop
async def test_a_langgraph_graphs_schemas_and_subgraphs_are_its_own(tmp_path: Path) -> None:
    """A graph LangGraph runs is asked for its schemas and subgraphs through LangGraph's own compiled graph."""
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        schemas = await client.assistants.get_schemas("nested")
        assert set(schemas["input_schema"]["properties"]) == {"messages", "log"} and "description" not in schemas["input_schema"]
        assert (schemas["state_schema"]["title"], set(schemas["state_schema"]["properties"])) == ("nested_state", {"messages", "log"})
        assert schemas["config_schema"] == {}
        subgraphs = await client.assistants.get_subgraphs("nested")
        assert list(subgraphs) == ["checks"] and subgraphs["checks"]["state_schema"]["properties"].keys() == {"messages", "log"}


@in_loop
async def test_a_background_run_is_answered_as_made(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        run = await client.runs.create(thread, "chain3", input={"n": 0})
        # As LangGraph's server answers a create: the run as made, whether or not it has ended since.
        assert run["status"] == "pending" and run["updated_at"] == run["created_at"]
        assert await client.runs.join(thread, run["run_id"]) == {"n": 3, "log": ["a", "b", "c"]}
        assert (await client.runs.get(thread, run["run_id"]))["status"] == "success"


@in_loop
async def test_a_failed_runs_thread_says_why(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "broken")
        with pytest.raises(Exception, match="ValueError: no way"):  # the SDK raises the run's error
            await client.runs.wait(thread, "broken", input={"messages": []})
        record = await client.threads.get(thread)
        # As LangGraph's server: the thread in error keeps its run's error; its task shows the exception's repr.
        assert (record["status"], record["error"]) == ("error", {"error": "ValueError", "message": "no way"})
        (task,) = (await client.threads.get_state(thread))["tasks"]
        assert (task["name"], task["error"]) == ("fail", "ValueError('no way')")


@in_loop
async def test_threads_are_found_and_counted_by_their_values(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        made_ = {}
        for n in (1, 2, 5):
            thread = await made(client, "chain3")
            await client.runs.wait(thread, "chain3", input={"n": n})
            made_[n + 3] = thread
        await made(client, "chain3")  # no version: no values
        # As LangGraph's server: the newest values contain the filter's (jsonb containment).
        found = await client.threads.search(values={"n": 4})
        assert [t["thread_id"] for t in found] == [made_[4]] and found[0]["values"]["n"] == 4
        assert await client.threads.search(values={"log": ["a", "c"]}, select=["thread_id"], limit=2) == [
            {"thread_id": made_[8]}, {"thread_id": made_[5]}]  # fmt: skip
        assert await client.threads.count(values={"n": 4}) == 1 and await client.threads.count(values={"log": ["b"]}) == 3
        assert await client.threads.search(values={"n": "4"}) == [] and await client.threads.count(values={"n": 99}) == 0
        # A stateless run is recorded with LangGraph's default strategy too.
        run = await client.runs.create(None, "chain3", input={"n": 0}, on_completion="keep")
        assert run["multitask_strategy"] == "enqueue"


@in_loop
async def test_a_subgraph_tasks_checkpoint_and_a_patched_thread_read_as_langgraphs(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "sse")
        await client.runs.wait(thread, "sse", input=INPUT, interrupt_before=["team"])
        (task,) = (await client.threads.get_state(thread))["tasks"]
        # As LangGraph's server: where the subgraph's versions go (its task's state as a config), no version id.
        assert task["name"] == "team" and task["state"] is None
        assert task["checkpoint"] == {"thread_id": thread, "checkpoint_ns": task["checkpoint"]["checkpoint_ns"]}
        assert task["checkpoint"]["checkpoint_ns"].startswith("team:")
        patched = await client.threads.update(thread, metadata={"tier": 2})
        assert patched["values"] == (await client.threads.get_state(thread))["values"] and patched["metadata"]["tier"] == 2
        assert patched["config"] == {"configurable": {}}  # LangGraph's shape (its server keeps the last run's there)
