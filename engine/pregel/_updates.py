"""``update_state`` and ``bulk_update_state``: a version written as if nodes had returned values, as LangGraph 1.2.

One call writes one "update" version on the version the config names (or the
newest). What the superstep is, LangGraph's ``as_node`` says:

* one or several nodes: each update is that node's return value (its writer
  runs: reducers, edges taken, Sends), all applied together as one step's
  writes, each task taking the id of that node's task due at the version (so
  history shows the update as its result), in order when a node is due more
  than once;
* ``"__input__"``: the values are the graph's input, written as an "input"
  version (the next run starts with START's task);
* ``"__copy__"``: the version is copied as a "fork" of it (same parent), and
  a list of ``(values, as_node)`` given as values is then applied to the copy
  as one superstep;
* ``END`` with ``None``: the step due ends here (its finished tasks' writes
  applied, nothing left due, no pending interrupt).

:func:`apply_updates` does it on the graph's saver; the version's
``updated_channels`` is None (as LangGraph's), so the run that continues from
it plans every node.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any, Mapping, Protocol, Sequence

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine._internal._ids import now_iso
from engine._internal._ids import task_id as make_task_id
from engine._internal._task import OUTSIDE_CONFIG
from engine.channels.base import BaseChannel
from engine.checkpoint.base import LEASE_KEY, Checkpoint, CheckpointTuple, Lease, empty_checkpoint, run_lease
from engine.pregel._migrate import copy_migrated, moved_channels
from engine.errors import InvalidUpdateError, NotFoundError
from engine.pregel._delta import COUNTERS, DeltaBook, hydrate, stamp_ids, stored_values, takes_task_path, task_path_str
from engine.pregel._algo import UPDATE, Task, apply_null_writes, apply_writes, prepare_next_tasks, restore_channels
from engine.pregel._io import configurable_metadata, input_writes, with_checkpoint_map
from engine.pregel._spec import NO_WRITES, PULL, PUSH, GraphSpec, NodeSpec
from engine.pregel._status import null_writes, read_statuses
from engine.types import END, START

__all__ = ["apply_updates", "INPUT", "COPY", "REJECTED"]

INPUT = "__input__"
COPY = "__copy__"
#: The note a reducer's error carries when it refused an update_state's values (the error itself is raised, as LangGraph's)
REJECTED = "update_state: the state's reducers rejected "

class Graph(Protocol):
    """What an update needs of the compiled graph whose versions it writes."""

    @property
    def nodes(self) -> Mapping[str, NodeSpec]: ...
    @property
    def channels(self) -> Mapping[str, BaseChannel]: ...
    @property
    def spec(self) -> GraphSpec: ...
    @property
    def name(self) -> str: ...


#: one update: (values, as_node, task_id)
Update = tuple[Any, "str | None", "str | None"]


async def apply_updates(
    graph: Graph, saver: Any, config: dict[str, Any], updates: Sequence[Update], lease: Lease | None
) -> dict[str, Any]:
    """Write the version of one superstep of ``updates``; its config."""
    configurable = dict(config.get("configurable") or {})
    lease = run_lease(saver, configurable.get("thread_id"), configurable, lease)
    saved = await saver.aget_tuple(config)
    if saved is None and configurable.get("checkpoint_id"):
        raise NotFoundError(f"no checkpoint {configurable['checkpoint_id']!r}")
    if saved is not None:
        saved = await hydrate(saver, saved, graph.channels)
    values, as_node = updates[0][:2]
    if as_node == COPY:
        return await _copy(graph, saver, config, saved, values, len(updates), lease)
    ck = copy_migrated(saved.checkpoint, graph.spec) if saved else empty_checkpoint()
    step = int(saved.metadata.get("step", -1)) if saved else -1
    channels = restore_channels(graph.channels, ck)
    tasks: list[Task] = []
    source, next_step = "update", step + 1
    if as_node == END and values is None:
        if len(updates) > 1:
            raise InvalidUpdateError("Cannot apply multiple updates when clearing state")
        changed = _end_step(graph, saved, ck, channels, step) if saved else set()
    elif as_node == INPUT:
        if len(updates) > 1:
            raise InvalidUpdateError("Cannot apply multiple updates when updating as input")
        writes = (graph.spec.input_writes or input_writes)(values)
        if graph.spec.deltas:
            writes = stamp_ids(graph.channels, list(writes))
        if not writes:
            raise InvalidUpdateError(f"Received no input writes for {graph.spec.name!r}")
        start = Task(id="", name=INPUT, path=("input",), input=None, triggers=(), node=None)  # type: ignore[arg-type]
        start.writes = writes
        changed = apply_writes(ck, channels, [start])[1]
        source, next_step = "input", step + 1 if saved else -1
    else:
        tasks = await _as_nodes(graph, saved, ck, channels, step, updates, config)
        changed = _apply(ck, channels, tasks, updates, graph.spec.triggers_to_nodes)
    # As LangGraph: no updated channels named, so the run that continues plans every node.
    ck["updated_channels"] = None
    ck["id"] = new_checkpoint_id()
    ck["ts"] = now_iso()
    ns = configurable.get("checkpoint_ns") or ""
    parent = {"configurable": {**configurable, "checkpoint_ns": ns, "checkpoint_id": saved.checkpoint["id"]}} if saved else {
        "configurable": {**{k: v for k, v in configurable.items() if k != "checkpoint_id"}, "checkpoint_ns": ns}
    }  # as LangGraph's: a saver's put always finds checkpoint_ns
    if lease is not None:
        parent["configurable"][LEASE_KEY] = lease  # the saver's side: the write carries its fencing token
    parents = dict(saved.metadata.get("parents") or {}) if saved else {}
    user = config.get("metadata") or {}
    metadata = {**user, **configurable_metadata(configurable, user), "source": source, "step": next_step, "parents": parents}
    new_versions = {**(moved_channels(saved.checkpoint, ck) if saved else {}), **{c: ck["channel_versions"][c] for c in changed}}
    # As LangGraph: an update's writes are stored on the version it updates, as the writes of
    # the node's task due there (history shows them as its result) or of an update task, where
    # reading the new version folds its delta channels from; unless the thread has moved past
    # that version: its other children would read them too, so nothing is stored on it.
    superseded = saved is not None and await _superseded(saver, configurable, saved)
    if graph.spec.deltas:
        deltas = graph.spec.deltas
        book = DeltaBook(deltas, saved.metadata if saved else None)
        if superseded:
            # The update's version snapshots the channels it writes, and those of another branch.
            book.force_pending(saved.pending_writes or ())  # type: ignore[union-attr]
            book.forced.update(c for t in tasks for c, _ in t.writes if c in deltas)
            book.forced.update(c for c in changed if c in deltas and as_node == INPUT)
        elif saved is not None and as_node == INPUT:
            book.forced.update(c for c in changed if c in deltas)
        snap, counters = book.store(ck, channels, new_versions, fresh=saved is None, triggers=graph.spec.triggers_to_nodes)
        metadata = {**metadata, COUNTERS: counters} if counters else metadata
        ck["channel_values"] = stored_values(ck["channel_values"], deltas, snap)
    if saved is not None and not superseded:
        for i, task in enumerate(tasks):
            due = task.path[0] in (PULL, PUSH)
            if task.writes or due:
                path = task_path_str(task.path if due else ("update", i))
                await _put_writes(saver, parent, task.writes or [(NO_WRITES, None)], task.id, path)
    # As LangGraph: a subgraph's version's config names its parents' versions (checkpoint_map).
    return with_checkpoint_map(await saver.aput(parent, ck, metadata, new_versions), metadata)  # type: ignore[return-value]


async def _put_writes(saver: Any, config: Mapping[str, Any], writes: list[tuple[str, Any]], task_id: str, path: str) -> None:
    """A task's writes, with its path when the saver takes one (it orders a version's writes)."""
    if takes_task_path(saver):
        await saver.aput_writes(config, writes, task_id, path)
    else:
        await saver.aput_writes(config, writes, task_id)


async def _superseded(saver: Any, configurable: Mapping[str, Any], saved: CheckpointTuple) -> bool:
    """Whether the thread has moved past ``saved``, the version the update names (it has a child)."""
    if not configurable.get("checkpoint_id"):
        return False
    head = await saver.aget_tuple({"configurable": {k: v for k, v in configurable.items() if k != "checkpoint_id"}})
    return head is not None and head.checkpoint["id"] != saved.checkpoint["id"]


def _apply(
    ck: Checkpoint, channels: Mapping[str, BaseChannel], tasks: list[Task], updates: Sequence[Update],
    triggers: Mapping[str, Sequence[str]],
) -> set[str]:  # fmt: skip
    if len(tasks) > 1:
        # As LangGraph: a superstep's updates apply in the order given (each its own update task there),
        # not by the names of the nodes due whose task ids they take (as apply_writes orders node tasks).
        tasks = [dataclasses.replace(t, path=(UPDATE, i)) for i, t in enumerate(tasks)]
    try:
        # As LangGraph: an update that triggers no node is tentatively the last step (a deferred node becomes due).
        # bump: an update moves time on whatever its node's triggers (LangGraph's update tasks are triggered by
        # __interrupt__), so a Send target's update clears the Sends it answers
        return apply_writes(ck, channels, tasks, triggers_to_nodes=triggers, bump=True)[1]
    except InvalidUpdateError:
        raise
    except Exception as e:  # a reducer refusing the values: its own error, as LangGraph's, saying so in a note
        values = [u[0] for u in updates]
        shown = values[0] if len(values) == 1 else values
        e.add_note(f"{REJECTED}{shown!r:.200}")
        raise


async def _as_nodes(
    graph: Graph, saved: CheckpointTuple | None, ck: Checkpoint, channels: Mapping[str, BaseChannel], step: int,
    updates: Sequence[Update], config: Mapping[str, Any],
) -> list[Task]:  # fmt: skip
    """The tasks of ``updates``, each its node's writer run on its values, with the ids of the tasks due."""
    due: dict[str, list[Task]] = defaultdict(list)
    for t in prepare_next_tasks(ck, channels, graph.nodes, step + 1):
        due[t.name].append(t)  # a node's task, then a Send's: an update as that node takes their ids in order
    tasks = []
    for i, (values, as_node, task_id) in enumerate(updates):
        if as_node is None:
            if len(updates) > 1:
                raise InvalidUpdateError("as_node is required when applying multiple updates")
            as_node = _last_writer(ck, graph.nodes)
        if not isinstance(as_node, str) or as_node not in graph.nodes:
            raise InvalidUpdateError(f"Node {as_node} does not exist (graph {graph.name!r} has no node {as_node!r})")
        node = graph.nodes[as_node]
        mine = due.get(as_node)
        match = mine.pop(0) if mine and task_id is None else None
        task = Task(
            id=task_id or (match.id if match is not None else make_task_id(ck["id"], step + 1, "update", as_node, *((i,) if i else ()))),
            name=as_node,
            path=match.path if match is not None else ("update",),
            input=None,
            triggers=tuple(c for c in node.triggers if c in ck["channel_versions"]),
            node=node,
            state=ck["channel_values"],
        )
        token = OUTSIDE_CONFIG.set(dict(config))  # its routers' get_config(), as LangGraph's
        try:
            writes = node.writer(values, ck["channel_values"], dict(config))
            if hasattr(writes, "__await__"):
                writes = await writes
        finally:
            OUTSIDE_CONFIG.reset(token)
        task.writes = stamp_ids(graph.channels, list(writes)) if graph.spec.deltas else writes
        tasks.append(task)
    return tasks


async def _copy(
    graph: Graph, saver: Any, config: dict[str, Any], saved: CheckpointTuple | None, values: Any, count: int,
    lease: Lease | None,
) -> dict[str, Any]:  # fmt: skip
    """``as_node="__copy__"``: the version copied as a "fork" beside it (same parent); ``values``, a list
    of ``(values, as_node)``, then applied to the copy as one superstep."""
    if count > 1:
        raise InvalidUpdateError("Cannot copy checkpoint with multiple updates")
    if saved is None:
        raise InvalidUpdateError("Cannot copy a non-existent checkpoint")
    ck = copy_migrated(saved.checkpoint, graph.spec)
    ck["id"] = new_checkpoint_id()
    ck["ts"] = now_iso()
    configurable = dict(saved.config.get("configurable") or {})
    parent = saved.parent_config or {"configurable": {k: v for k, v in configurable.items() if k != "checkpoint_id"}}
    parent = {"configurable": {"checkpoint_ns": "", **(parent.get("configurable") or {})}}
    if lease is not None:
        parent["configurable"][LEASE_KEY] = lease
    step = int(saved.metadata.get("step", -1))
    metadata = {"source": "fork", "step": step + 1, "parents": dict(saved.metadata.get("parents") or {})}
    if graph.spec.deltas:
        # The copy has the same parent and versions: its delta channels read back as the
        # original's, so it stores what that one stored of them and keeps its counters.
        ck["channel_values"] = stored_values(ck["channel_values"], graph.spec.deltas, set())
        if counters := saved.metadata.get(COUNTERS):
            metadata[COUNTERS] = counters
    out = await saver.aput(parent, ck, metadata, dict(ck["channel_versions"]))
    if not (isinstance(values, list) and values):
        return with_checkpoint_map(out, metadata)  # type: ignore[return-value]
    updates = []
    for item in values:
        if not isinstance(item, Sequence) or isinstance(item, (str, bytes)):
            raise InvalidUpdateError(f"Invalid update item: {str(item)} when copying checkpoint")
        updates.append((item[0], item[1], None))
    return await apply_updates(graph, saver, {**config, "configurable": {**config.get("configurable", {}), **out["configurable"]}}, updates, lease)


def _end_step(graph: Graph, saved: CheckpointTuple, ck: Checkpoint, channels: Mapping[str, BaseChannel], step: int) -> set[str]:
    """``update_state(config, None, as_node=END)``: the step due at ``saved`` ends here.

    As LangGraph: its input writes and the writes of its finished tasks are
    applied, and every task due is marked as run, so the new version has no
    next node and no pending interrupt. Returns the channels changed.
    """
    planned = prepare_next_tasks(ck, channels, graph.nodes, step + 1)
    changed: set[str] = set()
    if nulls := null_writes(saved.pending_writes or ()):
        changed |= apply_null_writes(ck, channels, nulls)
    statuses = read_statuses(saved.pending_writes or ())
    for t in planned:
        st = statuses.get(t.id)
        t.writes = st.writes if st is not None and st.finished else []
    return changed | apply_writes(ck, channels, planned)[1]


def _last_writer(ck: Checkpoint, nodes: Mapping[str, NodeSpec]) -> str:
    """The node that ran last, for update_state without ``as_node`` (a graph of one node: that one).

    As LangGraph, START is one of the nodes: at a version its input step made (the first
    node due), the update is START's, so the nodes START's writes trigger stay due."""
    if len(nodes) == 1:
        return next(iter(nodes))
    best: list[tuple[int, str]] = []
    for name, seen in ck["versions_seen"].items():
        if name in nodes and seen:
            best.append((max(seen.values()), name))
    if not best:
        return START
    best.sort(reverse=True)
    if len(best) > 1 and best[0][0] == best[1][0]:
        raise InvalidUpdateError(
            f"Ambiguous update, specify as_node (nodes {best[0][1]!r} and {best[1][1]!r} ran last together)"
        )
    return best[0][1]
