"""A stored version as callers read it: ``StateSnapshot``, recorded or live.

Two views of one version, as LangGraph 1.2 gives them:

* the *record* (``get_state`` naming a checkpoint id, every entry of
  ``get_state_history``): the values as the step started, every task of the
  step in ``next`` and ``tasks``, and every interrupt its tasks raised,
  answered or not;
* the *live* view (``get_state`` of a thread, no checkpoint id): the writes
  of the tasks that already finished in the step are applied to the values,
  ``next`` lists only the tasks still to run, and ``interrupts`` only the
  questions still waiting. If those writes conflict (two writes to a plain
  key: the step failed with InvalidUpdateError), reading raises that error
  again, as LangGraph's ``get_state`` does; the record of every version (a
  checkpoint id named, the history) still reads.

Both apply the step's input writes (a ``Command``'s update and goto) to the
values. Each task reports ``result`` (its writes to the output keys, ``{}``
if none) once it finished, ``None`` before; ``error`` when it failed. Pure:
no I/O.
"""

from __future__ import annotations

from typing import Any

from engine.checkpoint.base import CheckpointTuple
from engine.pregel._migrate import adopt_task_ids, copy_migrated
from engine.pregel._algo import Task, apply_null_writes, apply_writes, prepare_next_tasks, restore_channels
from engine.pregel._io import output_values, shown_metadata, with_checkpoint_map
from engine.pregel._nested import subgraph_ns
from engine.pregel._spec import GraphSpec
from engine.pregel._status import TaskStatus, null_writes, read_statuses, task_result
from engine.types import PregelTask, StateSnapshot

__all__ = ["build_snapshot", "subgraph_configs", "task_states"]

_NOT_RUN = TaskStatus()


def task_states(
    tasks: list[Task], statuses: dict[str, TaskStatus], output_keys: Any, *, live: bool
) -> tuple[PregelTask, ...]:
    """``PregelTask`` per planned task, from its status in the step's pending writes."""
    out = []
    for t in tasks:
        st = statuses.get(t.id, _NOT_RUN)
        result = task_result(st.output, output_keys) if st.finished else None
        ints = st.pending_interrupts if live else st.interrupts
        out.append(PregelTask(t.id, t.name, t.path, st.error, ints, None, result))
    return tuple(out)


def subgraph_configs(tasks: tuple[PregelTask, ...], planned: list[Task], config: dict[str, Any]) -> tuple[PregelTask, ...]:
    """As LangGraph: a subgraph node's task carries, as its ``state``, the config naming its subgraph's namespace."""
    conf = config.get("configurable") or {}
    out = []
    for pt, t in zip(tasks, planned):
        sub = t.node.subgraph
        if sub is not None and sub.checkpointer is not False:
            ns = subgraph_ns(conf.get("checkpoint_ns") or "", t.name, t.id, stable=sub.checkpointer is True)
            pt = pt._replace(state={"configurable": {"thread_id": conf.get("thread_id"), "checkpoint_ns": ns}})
        out.append(pt)
    return tuple(out)


def build_snapshot(graph: GraphSpec, saved: CheckpointTuple, *, live: bool, run_ids: bool = False) -> StateSnapshot:
    """The ``StateSnapshot`` of a stored version (see the module docstring for ``live``); ``run_ids``:
    its metadata names the run that wrote it (``run_id``, a host's view: :func:`~engine.pregel._io.shown_metadata`)."""
    ck = copy_migrated(saved.checkpoint, graph)
    channels = restore_channels(graph.channels, ck)
    step = int(saved.metadata.get("step", -1))
    planned = prepare_next_tasks(ck, channels, graph.nodes, step + 1)
    writes = adopt_task_ids(ck, saved.pending_writes or [], graph, step + 1, saved.config["configurable"].get("checkpoint_ns", ""))
    statuses = read_statuses(writes) if writes else {}
    nulls = null_writes(writes) if writes else []
    if nulls:
        apply_null_writes(ck, channels, nulls)
    values = output_values(channels, graph.stream_keys)
    finished = [t for t in planned if t.id in statuses and statuses[t.id].finished]
    if live and finished:
        for t in finished:
            t.writes = statuses[t.id].writes
        # As LangGraph: writes that conflict (two values for a plain key: the step failed so) raise
        # the step's InvalidUpdateError here too; the thread's history still reads each version.
        apply_writes(ck, channels, finished)
        values = output_values(channels, graph.stream_keys)
    tasks = task_states(planned, statuses, graph.stream_keys, live=live)
    if any(t.node.subgraph is not None for t in planned):
        tasks = subgraph_configs(tasks, planned, saved.config)
    done = {t.id for t in finished} if live else set()
    return StateSnapshot(
        values=values,
        next=tuple(t.name for t in planned if t.id not in done),
        config=with_checkpoint_map(saved.config, saved.metadata) or saved.config,
        metadata=shown_metadata(saved.metadata, run_ids=run_ids),
        created_at=saved.checkpoint.get("ts"),
        parent_config=with_checkpoint_map(saved.parent_config, saved.metadata),
        tasks=tasks,
        interrupts=tuple(i for t in tasks for i in t.interrupts),
    )
