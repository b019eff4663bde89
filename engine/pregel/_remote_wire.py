"""What a :class:`~engine.pregel.remote.RemoteGraph` sends to a LangGraph Server and makes of its answers.

Pure functions over plain data (no client, no I/O), so the sync and async
faces of ``RemoteGraph`` share every decision:

* the config a run is sent with (:func:`sanitized`): only what survives JSON
  (strings, numbers, booleans, UUIDs, and lists and string-keyed dicts of
  them), without the keys that address the caller's own versions;
* a thread's state as the server gives it, read back as a
  :class:`~engine.types.StateSnapshot` (:func:`snapshot_of`), and the
  checkpoint addresses both ways (:func:`checkpoint_of`, :func:`config_of`);
* the stream modes asked of the server (:class:`Modes`), and what each
  streamed part becomes for the caller (:class:`PartRouter`): a chunk in the
  caller's shape, a chunk handed to a parent graph's stream, an interrupt or
  a parent command raised, an error raised as :class:`RemoteException`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from uuid import UUID

from engine.errors import GraphInterrupt, ParentCommand
from engine.types import Command, Interrupt, PregelTask, StateSnapshot

__all__ = [
    "CONFIG_KEY_STREAM", "DROPPED_CONFIGURABLE", "INTERRUPT", "Modes", "PartRouter", "RemoteException", "checkpoint_of",
    "config_of", "command_body", "sanitized", "snapshot_of",
]

INTERRUPT = "__interrupt__"
NS_SEP = "|"
#: ``configurable[CONFIG_KEY_STREAM]``: the parent stream a RemoteGraph node hands its parts to (LangGraph's key)
CONFIG_KEY_STREAM = "__pregel_stream"
#: configurable keys that name the caller's own versions and task: never sent to the remote graph
DROPPED_CONFIGURABLE = frozenset(
    {"checkpoint_map", "checkpoint_id", "checkpoint_ns", "__pregel_task_id", "__pregel_strict_resume"}
)


class RemoteException(Exception):
    """The remote graph's run failed: its error part, as the server sent it."""


def _plain(value: Any) -> Any:
    """``value`` reduced to what JSON carries (None: nothing of it can be sent). A tuple becomes a list;
    a dict keeps its string keys; anything else (an object, a function) is left out."""
    if isinstance(value, (str, int, float, bool, UUID)):
        return value
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(k, str) and (kept := _plain(v)) is not None:
                out[k] = kept
        return out
    if isinstance(value, (list, tuple)):
        return [kept for v in value if (kept := _plain(v)) is not None]
    return None


def sanitized(config: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``config`` a run on the server is sent: its recursion limit, string tags, and the
    metadata and configurable values JSON can carry (the caller's version and task keys left out)."""
    out: dict[str, Any] = {}
    if "recursion_limit" in config:
        out["recursion_limit"] = config["recursion_limit"]
    if "tags" in config:
        out["tags"] = [t for t in config["tags"] if isinstance(t, str)]
    if "metadata" in config:
        out["metadata"] = _plain({k: v for k, v in config["metadata"].items() if isinstance(k, str)})
    if "configurable" in config:
        kept = {k: v for k, v in config["configurable"].items() if isinstance(k, str) and k not in DROPPED_CONFIGURABLE}
        out["configurable"] = _plain(kept)
    return out


def checkpoint_of(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The server's checkpoint address of a config (its thread, namespace, version, map), or None."""
    if config is None:
        return None
    configurable = config.get("configurable") or {}
    found = {k: configurable[k] for k in ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map") if k in configurable}
    return found or None


def config_of(checkpoint: Mapping[str, Any]) -> dict[str, Any]:
    """A config addressing the server's checkpoint ``checkpoint``."""
    return {
        "configurable": {
            "thread_id": checkpoint["thread_id"],
            "checkpoint_ns": checkpoint["checkpoint_ns"],
            "checkpoint_id": checkpoint["checkpoint_id"],
            "checkpoint_map": checkpoint.get("checkpoint_map", {}),
        }
    }


def snapshot_of(state: Mapping[str, Any]) -> StateSnapshot:
    """A thread state the server sent (``ThreadState``) as a StateSnapshot; a task's subgraph state
    nested as one too, or as the config of its checkpoint when only that was sent."""
    tasks = []
    for t in state["tasks"]:
        sub: Any = None
        if t.get("state"):
            sub = snapshot_of(t["state"])
        elif t.get("checkpoint"):
            sub = {"configurable": t["checkpoint"]}
        tasks.append(
            PregelTask(
                id=t["id"],
                name=t["name"],
                path=(),
                error=Exception(t["error"]) if t.get("error") else None,
                interrupts=tuple(Interrupt(**i) for i in t["interrupts"]),
                state=sub,
                result=t.get("result"),
            )
        )
    parent = state.get("parent_checkpoint")
    return StateSnapshot(
        values=state["values"],
        next=tuple(state["next"] or ()),
        config=config_of(state["checkpoint"]),
        metadata=dict(state["metadata"]) if state.get("metadata") is not None else None,
        created_at=state["created_at"],
        parent_config=config_of(parent) if parent else None,
        tasks=tuple(tasks),
        interrupts=tuple(i for t in tasks for i in t.interrupts),
    )


def command_body(command: Command) -> dict[str, Any]:
    """A Command as the run's ``command`` field (its fields by name, as LangGraph sends it)."""
    return {f.name: getattr(command, f.name) for f in dataclasses.fields(command)}


@dataclass(frozen=True, slots=True)
class Modes:
    """The stream modes of one call: ``sent`` to the server, ``wanted`` by the caller, ``single`` (one
    mode given as a string: chunks come without their mode)."""

    sent: list[str]
    wanted: list[str]
    single: bool

    @classmethod
    def of(cls, stream_mode: Any, parent: Any, default: str = "updates") -> Modes:
        """The modes for ``stream_mode`` (None: ``default``), with the parent stream's modes added. LangGraph's
        "messages" is the server's "messages-tuple" (and back); "updates" is always asked for, as the
        interrupts come in it; "events" is not a graph's mode and is never sent."""
        if not stream_mode:
            given, single = [default], True
        elif isinstance(stream_mode, str):
            given, single = [stream_mode], True
        else:
            given, single = list(stream_mode), False
        wanted = ["messages" if m == "messages-tuple" else m for m in given]
        sent = [*given, *(parent.modes if parent is not None else ())]
        sent = ["messages-tuple" if m == "messages" else m for m in sent]
        if "updates" not in sent:
            sent.append("updates")
        sent = [m for m in sent if m != "events"]
        return cls(sent, wanted, single)


class PartRouter:
    """What each part the server streams becomes, for one call.

    ``caller_ns``: the namespace the call runs in (a node's ``checkpoint_ns``), put before each
    part's own; inside a graph, an interrupt part stops the node (GraphInterrupt). ``parent``: a
    parent graph's stream (``modes``, called with ``(ns, mode, data)``), given every part of its modes.
    """

    def __init__(self, modes: Modes, *, caller_ns: str | None, parent: Any, subgraphs: bool, version: str) -> None:
        self.modes = modes
        self.caller = tuple(caller_ns.split(NS_SEP)) if caller_ns else ()
        self.parent: Callable[[Any], None] | None = parent
        self.parent_modes = frozenset(parent.modes) if parent is not None else frozenset()
        self.subgraphs = subgraphs
        self.version = version

    def route(self, part: Any) -> list[Any]:
        """The chunks ``part`` (an SDK ``StreamPart``: ``event``, ``data``) gives the caller, in its shape."""
        event, data = part.event, part.data
        mode, _, rest = event.partition(NS_SEP)
        ns = tuple(rest.split(NS_SEP)) if rest else ()
        if mode == "command" and isinstance(data, dict) and data.get("graph") == Command.PARENT:
            raise ParentCommand(Command(**data))
        ns = self.caller + ns
        if self.parent is not None and mode in self.parent_modes:
            self.parent((ns, mode, data))
        if mode == "updates":
            if isinstance(data, dict) and INTERRUPT in data and self.caller:
                raise GraphInterrupt([Interrupt(**i) for i in data[INTERRUPT]])
        elif mode == "error":
            raise RemoteException(data)
        if mode not in self.modes.wanted:
            return []
        # parts of the remote graph's subgraphs asked for only for a parent's stream; messages come
        # once whatever their namespace (the server sends each only once), so they always pass
        if rest and not self.subgraphs and mode != "messages":
            return []
        if mode == "messages":
            data = tuple(data)
        if self.version == "v2":
            interrupts: tuple[Any, ...] = ()
            if mode == "values" and isinstance(data, dict):
                interrupts = tuple(Interrupt(**i) if isinstance(i, dict) else i for i in data.pop(INTERRUPT, ()))
            return [{"type": mode, "ns": ns, "data": data, "interrupts": interrupts}]
        if self.subgraphs:
            return [(ns, data) if self.modes.single else (ns, mode, data)]
        if self.modes.single:
            return [data]
        return [part._replace(data=data) if mode == "messages" else part]


def last_value(chunks: Sequence[Any], version: str) -> Any:
    """``invoke``'s value: the last "values" chunk (v2: as a GraphOutput), None if there was none."""
    from engine.types import GraphOutput

    if not chunks:
        return None
    last = chunks[-1]
    if version == "v2":
        return GraphOutput(value=last["data"], interrupts=tuple(last.get("interrupts", ())))
    return last
