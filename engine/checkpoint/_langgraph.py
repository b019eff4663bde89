"""graphwire's savers as LangGraph's checkpointers: what the contract adds for LangGraph.

A program that runs on LangGraph itself (not the engine) may compile its
graph with ``checkpointer=`` one of graphwire's savers, to get their storage
(deltas for growing lists, fenced writes). LangGraph accepts only an
instance of its own ``langgraph.checkpoint.base.BaseCheckpointSaver``, and
stores its own types (``Send``, ``Interrupt``, ``Command``, ``Overwrite``)
in checkpoints. So, once LangGraph itself is imported in the process:

* :func:`adopt_langgraph_base` makes LangGraph's class a base of ours (our
  class keeps every method: LangGraph's base only adds its identity, so
  ``isinstance`` holds). It runs when a saver is built, not when the engine
  is imported: the engine never imports LangGraph (under the import swap
  ``langgraph`` *is* the engine, and a subprocess that installs the swap
  must not find real LangGraph modules already loaded).
* :func:`langgraph_entries` gives the serializer entries of LangGraph's own
  types, stored under their LangGraph names and rebuilt only as those
  classes (reading still never imports what stored bytes name).

Also here, written once for every saver on top of the contract: copying a
thread (:func:`copy_thread`) and LangGraph's walk of a channel's writes up
the parent chain (:func:`delta_channel_history`).
"""

from __future__ import annotations

import sys
import types
from collections import defaultdict
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from engine.serde._registry import Entry, make_entry, type_name

__all__ = ["LangGraphSlot", "adopt_langgraph_base", "allow_named", "copy_thread", "delta_channel_history", "langgraph_entries", "real_langgraph"]

_REAL_BASE = "langgraph.checkpoint.base"


class Saver(Protocol):
    """What copying and walking need of a saver: the contract's reads and writes."""

    async def aget_tuple(self, config: Mapping[str, Any]) -> Any: ...

    def alist(self, config: Mapping[str, Any] | None) -> AsyncIterator[Any]: ...

    async def aput(self, config: Mapping[str, Any], checkpoint: Any, metadata: Any, new_versions: Any) -> dict[str, Any]: ...

    async def aput_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str) -> None: ...


def real_langgraph(module: str) -> Any:
    """LangGraph's own ``module`` when the process has imported it, else None.

    Under the import swap ``sys.modules["langgraph..."]`` is an engine module:
    that is not LangGraph, and None is returned.
    """
    found = sys.modules.get(module)
    if found is None or getattr(found, "__name__", "").startswith("engine"):
        return None
    return found


#: The channel versions' type parameter of LangGraph's ``BaseCheckpointSaver[V]`` (annotations only: the
#: engine's versions are ints); ``engine.checkpoint.base.V``, as LangGraph's module has it.
V = TypeVar("V", int, float, str)


class LangGraphSlot:
    """The base of our ``BaseCheckpointSaver`` beside which LangGraph's is added: Python lets a
    class's bases change only from bases other than ``object`` alone."""

    def __class_getitem__(cls, item: Any) -> Any:
        """``BaseCheckpointSaver[str]`` in an annotation or as a base, as LangGraph's generic class allows
        (not ``typing.Generic``: LangGraph's class, itself a ``Generic``, may become a base beside ours)."""
        return types.GenericAlias(cls, item)


def adopt_langgraph_base(ours: type) -> None:
    """Make LangGraph's ``BaseCheckpointSaver`` a base of ``ours`` (once; only when LangGraph is imported).

    Our class defines every method LangGraph's has (a test pins it), so the
    added base changes no behaviour: it is found by ``isinstance`` only.
    """
    module = real_langgraph(_REAL_BASE)
    theirs = getattr(module, "BaseCheckpointSaver", None)
    if theirs is None or not isinstance(theirs, type) or issubclass(ours, theirs):
        return
    ours.__bases__ = (*ours.__bases__, theirs)


def langgraph_entries() -> list[Entry]:
    """Serializer entries for LangGraph's own types, when LangGraph is imported (else none).

    ``Interrupt``, ``Command`` and ``Overwrite`` are dataclasses; ``Send`` is a
    slotted class, taken apart into its fields here.
    """
    types = real_langgraph("langgraph.types")
    if types is None:
        return []
    entries = [make_entry(getattr(types, name)) for name in ("Interrupt", "Command", "Overwrite") if hasattr(types, name)]
    send = getattr(types, "Send", None)
    if isinstance(send, type):
        entries.append(Entry(type_name(send), send, "dataclass", _send_dump, _send_loader(send)))
    # A DeltaChannel's snapshot (a named tuple of one value), as LangGraph's savers store it.
    snapshot = getattr(real_langgraph("langgraph.checkpoint.serde.types"), "_DeltaSnapshot", None)
    if isinstance(snapshot, type):
        entries.append(Entry(type_name(snapshot), snapshot, "dataclass", _snapshot_dump, _snapshot_loader(snapshot)))
    return entries


def _snapshot_dump(value: Any) -> dict[str, Any]:
    return {"value": value.value}


def _snapshot_loader(cls: type) -> Any:
    def load(data: Any) -> Any:
        if not isinstance(data, dict) or set(data) != {"value"}:
            raise ValueError(f"a stored DeltaChannel snapshot must be a map of value, got {data!r:.80}")
        return cls(data["value"])

    return load


def allow_named(serde: Any, pairs: Collection[tuple[str, ...]]) -> None:
    """Allow on ``serde`` the classes ``(module, name)`` names, those of modules already imported
    (nothing is imported here: a name that is not loaded is left out)."""
    found = []
    for module, *name in pairs:
        target: Any = sys.modules.get(module)
        for part in ".".join(name).split(".") if name else ["?"]:
            target = getattr(target, part, None)
        if isinstance(target, type):
            found.append(target)
    if found and hasattr(serde, "allow"):
        serde.allow(*found)


def _send_dump(value: Any) -> dict[str, Any]:
    out = {"node": value.node, "arg": value.arg}
    if getattr(value, "timeout", None) is not None:
        out["timeout"] = value.timeout
    return out


def _send_loader(cls: type) -> Any:
    def load(data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("node"), str) or not set(data) <= {"node", "arg", "timeout"}:
            raise ValueError(f"a stored Send must be a map of node, arg (and timeout), got {data!r:.80}")
        send = cls(data["node"], data.get("arg"))
        if data.get("timeout") is not None:
            send.timeout = data["timeout"]  # type: ignore[attr-defined]
        return send

    return load


async def copy_thread(saver: Saver, source: str, target: str) -> None:
    """Copy every checkpoint (each namespace) and pending write of ``source`` to ``target``.

    Oldest first, so a parent is stored before its children and the target's
    growing lists are stored as deltas again. Whatever ``target`` held is
    kept (LangGraph's savers do the same); the copies keep their ids.
    """
    found = [t async for t in saver.alist({"configurable": {"thread_id": source}})]
    found.sort(key=lambda t: t.checkpoint["id"])
    for t in found:
        conf = t.config["configurable"]
        parent = (t.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        where: dict[str, Any] = {"thread_id": target, "checkpoint_ns": conf.get("checkpoint_ns", "")}
        if parent is not None:
            where["checkpoint_id"] = parent
        checkpoint = t.checkpoint
        stored = await saver.aput({"configurable": where}, checkpoint, t.metadata, dict(checkpoint["channel_versions"]))
        by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in t.pending_writes or ():
            by_task[task_id].append((channel, value))
        for task_id, writes in by_task.items():
            await saver.aput_writes(stored, writes, task_id)


async def delta_channel_history(
    saver: Saver, config: Mapping[str, Any], channels: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """For each channel: the pending writes to it on the ancestors of ``config``'s checkpoint
    (oldest first), and, as ``seed``, its value at the nearest ancestor that has one.

    LangGraph's ``get_delta_channel_history`` contract: a channel with no
    stored value on the way up to the root has no ``seed``; the target
    checkpoint's own writes (pending for its next step) are left out.
    """
    if not channels:
        return {}
    left = set(channels)
    writes: dict[str, list[Any]] = {c: [] for c in channels}
    seeds: dict[str, Any] = {}
    target = await saver.aget_tuple(config)
    cursor = None if target is None else target.parent_config
    seen = {target.checkpoint["id"]} if target is not None else set()
    while cursor is not None and left:
        t = await saver.aget_tuple(cursor)
        if t is None or t.checkpoint["id"] in seen:  # (a parent chain that loops, put so by hand: the walk ends)
            break
        seen.add(t.checkpoint["id"])
        for w in reversed(t.pending_writes or ()):
            if w[1] in left:
                writes[w[1]].append(tuple(w))
        values = t.checkpoint["channel_values"]
        for c in [c for c in left if c in values]:
            seeds[c] = values[c]
            left.discard(c)
        cursor = t.parent_config
    out: dict[str, dict[str, Any]] = {}
    for c in channels:
        entry: dict[str, Any] = {"writes": writes[c][::-1]}
        if c in seeds:
            entry["seed"] = seeds[c]
        out[c] = entry
    return out
