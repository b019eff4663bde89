"""More langgraph-sdk programs for bench/http_vs_langgraph_dev.py, over the rest of LangGraph's HTTP API.

The same kind as bench/_peers_programs.py's (ordinary async ``langgraph-sdk``
programs returning what they saw), on bench/peers_app's graphs: threads and
``update_state``, the other stream modes, assistants, a failing run, an
interrupt inside a subgraph, a ``Send`` fan-out, stateless runs and a static
breakpoint continued with ``command.resume``. Each was written when it found
differences (the twenty-first session's, since made as ``langgraph dev`` does
them: docs/http.md, "Beside ``langgraph dev``").
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from bench._peers_programs import Seen, _caught, _stream, _user

__all__ = ["MORE"]


async def threads_and_updates(client: Any) -> Seen:
    """A thread's record through a run, ``update_state``, search (metadata, values), copy and delete."""
    seen: Seen = []
    made = await _caught(seen, "create", client.threads.create(metadata={"owner": "ann"}, graph_id="chain3"))
    thread = made["thread_id"]
    await _caught(seen, "wait", client.runs.wait(thread, "chain3", input={"n": 1}))
    await _caught(seen, "update_state", client.threads.update_state(thread, {"n": 10}, as_node="b"))
    await _caught(seen, "state after update", client.threads.get_state(thread))
    await _caught(seen, "history limit 2", client.threads.get_history(thread, limit=2))
    await _caught(seen, "history of updates", client.threads.get_history(thread, metadata={"source": "update"}))
    await _caught(seen, "patch", client.threads.update(thread, metadata={"tier": 2}))
    await _caught(seen, "get", client.threads.get(thread))
    await _caught(seen, "search by values", client.threads.search(values={"n": 10}, select=["thread_id", "status", "values"]))
    await _caught(seen, "count by values", client.threads.count(values={"n": 10}))
    copy = await _caught(seen, "copy", client.threads.copy(thread))
    if copy is not None:
        await _caught(seen, "copied state", client.threads.get_state(copy["thread_id"]))
    await _caught(seen, "delete", client.threads.delete(thread))
    await _caught(seen, "get deleted", client.threads.get(thread))
    await _caught(seen, "run on deleted", client.runs.wait(thread, "chain3", input={"n": 1}))
    await _caught(seen, "run making it", client.runs.wait(thread, "chain3", input={"n": 1}, if_not_exists="create"))
    return seen


async def stream_modes(client: Any) -> Seen:
    """The chat streamed in ``updates`` and ``debug``, ``messages``, then ``tasks`` and ``checkpoints``."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="chat"))["thread_id"]
    await _stream(seen, "updates+debug", client.runs.stream(thread, "chat", input=_user("weather in Oslo"), stream_mode=["updates", "debug"]))
    await _stream(seen, "messages", client.runs.stream(thread, "chat", input=_user("weather in Rome"), stream_mode="messages"))
    await _stream(seen, "tasks+checkpoints", client.runs.stream(thread, "chat", input=_user("weather in Paris"), stream_mode=["tasks", "checkpoints"]))
    return seen


async def assistants(client: Any) -> Seen:
    """An assistant made, changed, versioned, found, drawn and deleted."""
    seen: Seen = []
    made = await _caught(seen, "create", client.assistants.create(
        "chat", config={"configurable": {"m": 1}, "tags": ["t"]}, metadata={"k": "v"}, name="A", description="d"))  # fmt: skip
    bot = made["assistant_id"]
    await _caught(seen, "update", client.assistants.update(bot, config={"configurable": {"m": 2}}, name="B"))
    await _caught(seen, "versions", client.assistants.get_versions(bot))
    await _caught(seen, "set latest", client.assistants.set_latest(bot, 1))
    await _caught(seen, "get", client.assistants.get(bot))
    await _caught(seen, "search", client.assistants.search(metadata={"k": "v"}))
    await _caught(seen, "count", client.assistants.count(graph_id="chat"))
    await _caught(seen, "schemas", client.assistants.get_schemas(bot))
    await _caught(seen, "delete", client.assistants.delete(bot))
    await _caught(seen, "get deleted", client.assistants.get(bot))
    return seen


async def failing_run(client: Any) -> Seen:
    """A node that raises: waited, streamed, created and joined; the thread and its state after it."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="failing"))["thread_id"]
    await _caught(seen, "wait", client.runs.wait(thread, "failing", input={"n": 1}))
    await _stream(seen, "stream", client.runs.stream(thread, "failing", input={"n": 1}, stream_mode=["values", "updates"]))
    await _caught(seen, "thread", client.threads.get(thread))
    await _caught(seen, "state", client.threads.get_state(thread))
    run = await _caught(seen, "create", client.runs.create(thread, "failing", input={"n": 1}))
    if run is not None:
        await _caught(seen, "join", client.runs.join(thread, run["run_id"]))
    return seen


async def subgraph_interrupt(client: Any) -> Seen:
    """An interrupt inside a subgraph, streamed with its namespace, read (with the subgraph's state) and answered."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="nested"))["thread_id"]
    await _stream(seen, "stream", client.runs.stream(thread, "nested", input={"log": []}, stream_mode=["values", "updates"], stream_subgraphs=True))
    await _caught(seen, "state", client.threads.get_state(thread))
    await _caught(seen, "state with subgraphs", client.threads.get_state(thread, subgraphs=True))
    await _caught(seen, "thread", client.threads.get(thread))
    await _stream(seen, "resume", client.runs.stream(thread, "nested", command={"resume": "y"}, stream_mode=["values", "updates"]))
    await _caught(seen, "history", client.threads.get_history(thread))
    return seen


async def fan_out(client: Any) -> Seen:
    """Three ``Send`` tasks streamed in ``values``, ``updates`` and ``tasks``."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="fanout"))["thread_id"]
    await _stream(seen, "stream", client.runs.stream(thread, "fanout", input={"log": []}, stream_mode=["values", "updates", "tasks"]))
    await _caught(seen, "history", client.threads.get_history(thread))
    return seen


async def stateless_and_breakpoints(client: Any) -> Seen:
    """Stateless runs; a static breakpoint continued with ``command.resume``, twice; runs listed."""
    seen: Seen = []
    await _caught(seen, "wait, stateless", client.runs.wait(None, "chain3", input={"n": 1}))
    await _stream(seen, "stream, stateless", client.runs.stream(None, "chain3", input={"n": 2}, stream_mode="updates"))
    run = await _caught(seen, "create, stateless, kept", client.runs.create(None, "chain3", input={"n": 3}, on_completion="keep"))
    if run is not None:
        await _caught(seen, "joined", client.runs.join(run["thread_id"], run["run_id"]))
    thread = str(uuid.uuid4())
    await _caught(seen, "paused", client.runs.wait(thread, "chain3", input={"n": 0}, interrupt_before=["b"], if_not_exists="create"))
    await _caught(seen, "resumed", client.runs.wait(thread, "chain3", command={"resume": 1}))
    await _caught(seen, "resumed again", client.runs.wait(thread, "chain3", command={"resume": 1}))
    await _caught(seen, "runs", client.runs.list(thread))
    return seen


MORE: dict[str, Callable[[Any], Awaitable[Seen]]] = {
    "threads and update_state": threads_and_updates,
    "stream modes (updates, debug, messages, tasks, checkpoints)": stream_modes,
    "assistants": assistants,
    "a failing run": failing_run,
    "an interrupt in a subgraph": subgraph_interrupt,
    "a Send fan-out": fan_out,
    "stateless runs, a static breakpoint resumed": stateless_and_breakpoints,
}
