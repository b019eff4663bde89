"""A run's events as the Server-Sent Events LangGraph's Agent Server sends, one shaper per stream.

The run core sends :class:`pb.RunEvent` messages; a LangGraph client reads the
chunks of ``graph.astream(..., stream_mode=[...], subgraphs=True)`` as the
Agent Server frames them. :class:`SseShaper` turns each event into the frames
of the modes the caller asked for, with the run's ``seq`` as the frame's
``id:`` (a client that lost its connection sends it back as ``Last-Event-ID``
and the stream goes on after it, as JoinRun's ``after_seq``):

* ``metadata`` first, ``{"run_id", "attempt"}``;
* ``values``: the state after each step (``Values``); a run that stops at an
  interrupt ends with its state and ``"__interrupt__"``, as LangGraph's values
  stream does;
* ``updates``: ``{node: update}`` per finished task (``TaskFinished``; a
  cached one with ``"__metadata__": {"cached": true}``), and
  ``{"__interrupt__": [...]}`` when the run stops at interrupts;
* ``messages-tuple`` (event ``messages``): ``[chunk, metadata]`` as the chat
  model produced it; ``messages``: ``messages/metadata`` the first time a
  message id is seen, then ``messages/partial`` with the message so far (its
  chunks added up as LangChain adds them) or ``messages/complete`` for a
  message that came whole;
* ``custom``: what the node wrote; ``tasks``: a task's start
  (``{id, name, input, triggers}``) and its result (``{id, name, error,
  result, interrupts}``);
* ``error`` (``{"error", "message"}``) for a run that failed, last; a stream
  that ends well ends with the run's last frame (no ``end`` frame: LangGraph's
  server sends none).

With ``stream_subgraphs`` a subgraph's event is named ``mode|ns1|ns2`` (its
namespace, one ``node:task_id`` per level); without it, subgraphs' events are
left out. ``checkpoints`` and ``debug`` are made by
:mod:`server.http._sse_debug`. ``events``: LangChain's callback events of the
run (``CallbackEvent``, as ``astream_events(version="v2")`` gives them), each
an ``events`` frame, never named with a namespace (LangGraph's server does
not); it needs langchain-core, and :func:`check_modes` refuses it without.

Pure: no I/O; the run routes (:mod:`server.http._runs`) drive it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.host import RUN_KEY, langchain_messages
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._json import encode
from server._messages import messages_in
from server.http._shapes import interrupt
from server.http._sse_debug import CHECKPOINT_KINDS, CheckpointFrames

__all__ = ["MODES", "Frame", "SseShaper", "check_modes", "event_kinds"]

#: The stream modes served, in LangGraph's names.
MODES = ("values", "updates", "messages", "messages-tuple", "custom", "tasks", "checkpoints", "debug", "events")
#: The run events each mode is made of (RUN_STARTED and RUN_FINISHED come always).
_KINDS: dict[str, tuple[pb.EventKind.ValueType, ...]] = {
    "values": (pb.EVENT_KIND_VALUES,),
    "updates": (pb.EVENT_KIND_TASK_FINISHED,),
    "messages": (pb.EVENT_KIND_MESSAGE_CHUNK, pb.EVENT_KIND_TASK_STARTED, pb.EVENT_KIND_TASK_FINISHED),
    "messages-tuple": (pb.EVENT_KIND_MESSAGE_CHUNK, pb.EVENT_KIND_TASK_STARTED, pb.EVENT_KIND_TASK_FINISHED),
    "custom": (pb.EVENT_KIND_CUSTOM,),
    "tasks": (pb.EVENT_KIND_TASK_STARTED, pb.EVENT_KIND_TASK_FINISHED),
    "checkpoints": CHECKPOINT_KINDS,
    "debug": (*CHECKPOINT_KINDS, pb.EVENT_KIND_TASK_STARTED, pb.EVENT_KIND_TASK_FINISHED),
    "events": (pb.EVENT_KIND_CALLBACK,),
}
_START = "__start__"  # the input's task: LangGraph's streams do not show it
_ERRORS = {pb.FINISH_REASON_ERROR, pb.FINISH_REASON_RECURSION_LIMIT}


def check_modes(modes: str | Sequence[str] | None) -> tuple[str, ...]:
    """The requested modes as a tuple (default ``("values",)``); ValueError naming a mode not served."""
    if modes is None:
        return ("values",)
    asked = (modes,) if isinstance(modes, str) else tuple(modes)
    for mode in asked:
        if mode not in MODES:
            raise ValueError(f"stream_mode {mode!r} is not a stream mode (one of {', '.join(MODES)})")
        if mode == "events" and langchain_messages() is None:
            raise ValueError("stream_mode 'events' is LangChain's callback events: it needs langchain-core, which this server lacks")
    return tuple(dict.fromkeys(asked)) or ("values",)


def event_kinds(modes: Iterable[str]) -> list[pb.EventKind.ValueType]:
    """The run events the ``modes`` are made of (what a run call's ``event_kinds`` asks for)."""
    return sorted({k for m in modes for k in _KINDS[m]})


@dataclass(frozen=True, slots=True)
class Frame:
    """One Server-Sent Event: its name, its data as JSON text, and its id (the run's seq), if any."""

    event: str
    data: str
    id: int | None = None

    def encode(self) -> bytes:
        head = f"event: {self.event}\r\ndata: {self.data}\r\n"
        if self.id is not None:
            head += f"id: {self.id}\r\n"
        return (head + "\r\n").encode()


def _triggers(t: pb.TaskStarted) -> list[str]:
    """A task's triggers as LangGraph names them: a Send's task's is ``__pregel_push`` (graphwire's events
    name the channel its packets wait in, ``__pregel_tasks``; the engine's own stream maps it so too)."""
    return ["__pregel_push"] if list(t.triggers) == ["__pregel_tasks"] else list(t.triggers)


class SseShaper:
    """The frames of one stream (see the module's doc).

    Args:
        modes: the caller's stream modes (:func:`check_modes`'s).
        subgraphs: whether subgraphs' events are sent (``stream_subgraphs``).
        thread_id: the caller's thread id (the ``checkpoints`` and ``debug`` modes name it).
    """

    def __init__(self, modes: Sequence[str], *, subgraphs: bool = False, thread_id: str = "") -> None:
        self.modes = frozenset(modes)
        self.subgraphs = subgraphs
        checkpoints, debug = "checkpoints" in self.modes, "debug" in self.modes
        self._versions = CheckpointFrames(thread_id, checkpoints=checkpoints, debug=debug) if checkpoints or debug else None
        self._messages: dict[Any, Any] = {}  # message id -> the message so far (``messages`` mode)
        self._chat = bool(self.modes & {"messages", "messages-tuple"})
        self._tasks: dict[str, pb.TaskStarted] = {}  # the graph's own running tasks (messages modes, no subgraphs)
        self._held: dict[str, dict[Any, dict[str, Any]]] = {}  # task id -> its subgraph's messages: id -> metadata
        self._stopped: dict[tuple[str, ...], list[dict[str, Any]]] = {}  # a subgraph's namespace -> its interrupts not sent
        self._sub_values: dict[tuple[str, ...], str] = {}  # a subgraph's namespace -> its last values (stream_subgraphs)

    def wants_start(self, e: pb.RunEvent) -> bool:
        """Whether the values of the version run ``e`` starts from are wanted (``checkpoints`` and ``debug``
        show them as the values of the version a run's input saves; on a new thread, the graph's empty
        channels, ``{"messages": []}``): :meth:`start_values` then."""
        return self._versions is not None and e.HasField("run_started")

    def start_values(self, values: Any) -> None:
        """The values of the thread's version the run starts from (see :meth:`wants_start`)."""
        if self._versions is not None:
            self._versions.start_values(values)

    @staticmethod
    def metadata(run_id: str, attempt: int = 1) -> Frame:
        """The stream's first frame."""
        return Frame("metadata", encode({"run_id": run_id, "attempt": attempt}))

    @staticmethod
    def error(kind: str, message: str, seq: int | None = None) -> Frame:
        """An ``error`` frame: ``kind`` is the exception's class name (or the status's)."""
        return Frame("error", encode({"error": kind, "message": message}), seq)

    def frames(self, e: pb.RunEvent) -> list[Frame]:
        """The frames ``e`` makes for the caller's modes (none for most events)."""
        kind = e.WhichOneof("event")
        ns = tuple(e.namespace)
        suffix = "|" + "|".join(ns) if ns else ""
        early = []
        if self._versions is not None and (self.subgraphs or not ns):
            early = [Frame(name + suffix, encode(data), e.seq) for name, data in self._versions.before(e)]
        if kind == "run_finished":
            return early + self._finished(e)
        if ns and not self.subgraphs:
            if kind == "message_chunk" and self._chat:
                self._hold(e)
            return []
        if kind == "message_chunk":
            return [Frame(name, data, e.seq) for name, data in self._chunk(e, suffix)]
        if self.subgraphs and kind in ("values", "task_finished"):
            early += self._subgraph_stops(e, ns)
        if kind == "callback":
            return early + ([Frame("events", e.callback.event_json or "null", e.seq)] if "events" in self.modes else [])
        out: list[tuple[str, str]] = []
        if kind == "values" and "values" in self.modes:
            out.append(("values", e.values.values_json or "null"))
        elif kind == "custom" and "custom" in self.modes:
            out.append(("custom", e.custom.payload_json or "null"))
        elif kind == "task_started" and e.task_started.node != _START and self.modes & {"tasks", "debug"}:
            t = e.task_started
            started = {"id": t.task_id, "name": t.node, "input": _loads(t.input_json), "triggers": _triggers(t)}
            if "tasks" in self.modes:
                out.append(("tasks", encode(started)))
            out += self._debug(t.step, "task", started)
        elif kind == "task_finished" and e.task_finished.node != _START:
            out += self._task_finished(e.task_finished)
        if self._chat and not self.subgraphs and not ns:
            if kind == "task_started":
                self._tasks[e.task_started.task_id] = e.task_started
            elif kind == "task_finished":
                out[:0] = self._released(e.task_finished)
        return early + [Frame(name + suffix, data, e.seq) for name, data in out]

    # -- the kinds -----------------------------------------------------------------------
    def _task_finished(self, t: pb.TaskFinished) -> list[tuple[str, str]]:
        out = []
        if "updates" in self.modes and not t.HasField("error") and not t.interrupts:
            update = _loads(t.update_json)
            body = {t.node: update, "__metadata__": {"cached": True}} if t.cached else {t.node: update}
            out.append(("updates", encode(body)))
        if self.modes & {"tasks", "debug"}:
            error = {"error": t.error.type, "message": t.error.message} if t.HasField("error") else None
            result = _loads(t.update_json) if t.update_json else {}
            body = {"id": t.task_id, "name": t.node, "error": error, "result": result, "interrupts": [interrupt(i, streamed=True) for i in t.interrupts]}
            if "tasks" in self.modes:
                out.append(("tasks", encode(body)))
            out += self._debug(t.step, "task_result", body)
        return out

    def _debug(self, step: int, kind: str, payload: Any) -> list[tuple[str, str]]:
        """A task's ``debug`` frame (``kind`` "task" or "task_result"), when debug was asked for."""
        if self._versions is None:
            return []
        return [(name, encode(data)) for name, data in self._versions.task(step, kind, payload)]

    def _chunk(self, e: pb.RunEvent, suffix: str) -> list[tuple[str, str]]:
        """A message chunk's frames: ``messages`` (the tuple, named with its namespace) and the
        accumulated ``messages/...`` (never named so: LangGraph's server does not)."""
        c = e.message_chunk
        meta = _metadata(c.metadata_json, e.run_id)
        out = []
        if "messages-tuple" in self.modes:
            out.append(("messages" + suffix, f"[{c.chunk_json or 'null'},{encode(meta)}]"))
        if "messages" in self.modes:
            out += self._accumulated(json.loads(c.chunk_json) if c.chunk_json else None, meta)
        return out

    def _accumulated(self, chunk: Any, meta: dict[str, Any]) -> list[tuple[str, str]]:
        """``messages`` mode: the message so far, its metadata the first time its id is seen."""
        ident = chunk.get("id") if isinstance(chunk, dict) else None
        partial = isinstance(chunk, dict) and str(chunk.get("type", "")).endswith("Chunk")
        out = []
        message = _message(chunk)
        if ident in self._messages:
            try:
                message = self._messages[ident] + message
            except (TypeError, ValueError):
                pass  # not chunks of one message (a whole message with a streamed one's id): the newest stands
        else:
            out.append(("messages/metadata", encode({ident: {"metadata": meta}})))
        self._messages[ident] = message
        # As LangGraph's server: the message so far in its whole form (an AIMessageChunk as an "ai" message).
        return [*out, ("messages/partial" if partial else "messages/complete", encode([_whole(message)]))]

    # -- a subgraph's messages, without stream_subgraphs --------------------------------------
    def _hold(self, e: pb.RunEvent) -> None:
        """Note a subgraph's message: LangGraph sends it whole once its task in the graph returns it."""
        task_id = e.namespace[0].rpartition(":")[2]
        chunk = json.loads(e.message_chunk.chunk_json) if e.message_chunk.chunk_json else None
        if isinstance(chunk, dict) and chunk.get("id") is not None:
            self._held.setdefault(task_id, {}).setdefault(chunk["id"], _metadata(e.message_chunk.metadata_json, e.run_id))

    def _released(self, t: pb.TaskFinished) -> list[tuple[str, str]]:
        """The messages a subgraph made that its task's update returns, whole, as the task's own."""
        started = self._tasks.pop(t.task_id, None)
        held = self._held.pop(t.task_id, None)
        if not held or started is None or not t.update_json:
            return []
        out = []
        for message in _messages_in(json.loads(t.update_json)):
            if message.get("id") not in held or message["id"] in self._messages:
                continue
            meta = {k: v for k, v in held[message["id"]].items() if not k.startswith(_CHUNK_KEYS)}
            meta.update({
                "ls_integration": "langgraph", "langgraph_step": started.step, "langgraph_node": started.node,
                "langgraph_triggers": _triggers(started), "langgraph_path": ["__pregel_pull", started.node],
                "langgraph_checkpoint_ns": f"{started.node}:{started.task_id}",
            })  # fmt: skip
            if "messages-tuple" in self.modes:
                out.append(("messages", encode([message, meta])))
            if "messages" in self.modes:
                self._messages[message["id"]] = message
                out += [("messages/metadata", encode({message["id"]: {"metadata": meta}})), ("messages/complete", encode([message]))]
        return out

    def _subgraph_stops(self, e: pb.RunEvent, ns: tuple[str, ...]) -> list[Frame]:
        """With ``stream_subgraphs``, a subgraph that stopped at interrupts, as LangGraph streams it under its
        namespace: ``updates`` with its ``__interrupt__`` list, then its last ``values`` with it, sent when its
        node's task in the parent finishes (its whole step is done then), before the parent's frames."""
        if e.HasField("values"):
            if ns and "values" in self.modes:
                self._sub_values[ns] = e.values.values_json
            return []
        t = e.task_finished
        if ns and t.interrupts:
            self._stopped.setdefault(ns, []).extend(interrupt(i, streamed=True) for i in t.interrupts)
            return []
        out: list[Frame] = []
        for sub in [s for s in self._stopped if s[:-1] == ns and s[-1].rpartition(":")[2] == t.task_id]:
            pending, suffix = self._stopped.pop(sub), "|" + "|".join(sub)
            if "updates" in self.modes:
                out.append(Frame("updates" + suffix, encode({"__interrupt__": pending}), e.seq))
            if "values" in self.modes:
                values = _loads(self._sub_values.get(sub, ""))
                values = {**values, "__interrupt__": pending} if isinstance(values, dict) else {"__interrupt__": pending}
                out.append(Frame("values" + suffix, encode(values), e.seq))
        return out

    def _finished(self, e: pb.RunEvent) -> list[Frame]:
        f = e.run_finished
        out: list[Frame] = []
        if f.reason in _ERRORS:
            out.append(self.error(f.error.type or "Error", f.error.message, e.seq))
        elif f.reason == pb.FINISH_REASON_CANCELLED:
            out.append(self.error("UserInterrupt", f"run {e.run_id} was cancelled", e.seq))
        elif f.reason == pb.FINISH_REASON_INTERRUPT and f.interrupts:
            pending = [interrupt(i, streamed=True) for i in f.interrupts]
            if "updates" in self.modes:
                out.append(Frame("updates", encode({"__interrupt__": pending}), e.seq))
            if "values" in self.modes:
                values = _loads(f.values_json)
                values = {**values, "__interrupt__": pending} if isinstance(values, dict) else {"__interrupt__": pending}
                out.append(Frame("values", encode(values), e.seq))
        return out


#: The metadata keys that describe where a chunk was made (the model's call), not the run.
_CHUNK_KEYS = ("langgraph_", "ls_", "checkpoint_ns", "lc_")


def _messages_in(update: Any) -> list[dict[str, Any]]:
    """The LangChain-form messages among an update's values (a key's list of them, or one)."""
    found: list[dict[str, Any]] = []
    for value in update.values() if isinstance(update, dict) else ():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and "type" in item and "content" in item and item.get("id") is not None:
                found.append(item)
    return found


def _loads(text: str) -> Any:
    return json.loads(text) if text else None


def _metadata(text: str, run_id: str) -> dict[str, Any]:
    """A chunk's metadata as LangGraph's server gives it: the run's id under ``run_id`` (every chunk's, as
    the run's config metadata carries it there), not graphwire's key."""
    meta = json.loads(text) if text else {}
    if not isinstance(meta, dict):
        return {"run_id": run_id}
    if RUN_KEY in meta:
        meta = {k: v for k, v in meta.items() if k != RUN_KEY}
    meta.setdefault("run_id", run_id)
    return meta


def _message(chunk: Any) -> Any:
    """A LangChain-form dict as its LangChain class (chunks add up), or the dict itself without LangChain."""
    if langchain_messages() is None or not isinstance(chunk, dict):
        return chunk
    try:
        return messages_in(chunk, "chunk")
    except ValueError:
        return chunk


def _whole(message: Any) -> Any:
    """A message chunk as its whole message, as LangChain turns one (``messages_chunk_to_message``: its
    whole type, without ``tool_call_chunks`` and ``chunk_position``)."""
    lc = langchain_messages()
    if lc is not None and isinstance(message, lc.BaseMessageChunk):
        return lc.message_chunk_to_message(message)
    return message
