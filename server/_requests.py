"""Requests → engine arguments. Pure functions; no I/O.

The server's mirror of the Python client's ``_requests.py`` (its arguments →
request messages): every field a request carries is checked here, and turned
into what the engine takes: the run's config dict (:func:`config`, the one
place the server builds one), its options, its input, a Resume's answers.
A bad field raises INVALID_ARGUMENT naming it (RESOURCE_EXHAUSTED for one over
its size); the RPCs (:mod:`server.service`) and the inspector's query
parameters go through the same checks. What needs the thread (does it
exist, is anything pending) is the engine's to say, through the reads
(:mod:`server._reads`) and the run.
"""

from __future__ import annotations

from typing import Any

import grpc

from engine import events as ev
from engine.host import MAX_METADATA_BYTES, ContextError, EntrypointGraph, context_from_json, langchain_messages
from engine.pregel import Pregel
from engine.types import END, Command, Send
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._convert import CLASS_OF
from server._errors import RpcError
from server._json import decode_json
from server._messages import messages_in

__all__ = [
    "MAX_CONTEXT_BYTES", "MAX_ID", "NO_UPDATE", "RESERVED_CONFIGURABLE", "as_node", "bad", "config", "configurable",
    "fork_update", "history_filter", "ident", "invoke_input", "namespace", "resume_answers", "run_config", "run_context",
    "run_options", "update_values",
]  # fmt: skip

MAX_ID = 512
#: the largest context_json a run takes (like run metadata: small values, a user's id or locale)
MAX_CONTEXT_BYTES = MAX_METADATA_BYTES
#: :func:`fork_update` of a Fork without update_json
NO_UPDATE: Any = object()
#: The ``configurable`` keys the service sets itself (besides every key starting with "__", the engine's)
RESERVED_CONFIGURABLE = ("thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map")

_DURABILITY = {pb.DURABILITY_UNSPECIFIED: None, pb.DURABILITY_ASYNC: "async", pb.DURABILITY_SYNC: "sync", pb.DURABILITY_EXIT: "exit"}


def bad(field: str, why: str) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {why}")


def ident(value: str, field: str) -> str:
    """``value`` when it is a usable id (graph, thread or checkpoint); else INVALID_ARGUMENT."""
    if not value:
        raise bad(field, "required")
    if len(value) > MAX_ID:
        raise bad(field, f"at most {MAX_ID} characters")
    if "\x00" in value:
        raise bad(field, "must not contain NUL")
    return value


def namespace(checkpoint_ns: str) -> str:
    """A subgraph's namespace from a request: ``node:task_id`` parts joined with "|" (INVALID_ARGUMENT otherwise)."""
    if len(checkpoint_ns) > 4 * MAX_ID:
        raise bad("checkpoint_ns", f"is longer than {4 * MAX_ID} characters")
    for part in checkpoint_ns.split("|") if checkpoint_ns else ():
        node, _, task = part.partition(":")
        if not node or (_ and not task):
            raise bad("checkpoint_ns", f"{checkpoint_ns!r} is not a subgraph namespace (node:task_id parts joined with '|')")
    return checkpoint_ns


def config(
    key: str,
    checkpoint_id: str | None = None,
    *,
    checkpoint_ns: str = "",
    recursion_limit: int | None = None,
    metadata: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The config of a call on thread ``key``: the one place the server builds one.

    ``extra``: the caller's own ``configurable`` keys (:func:`configurable`), beside the thread's.
    """
    configurable: dict[str, Any] = {**(extra or {}), "thread_id": key}
    if checkpoint_ns:
        configurable["checkpoint_ns"] = checkpoint_ns
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    out: dict[str, Any] = {"configurable": configurable}
    if recursion_limit:
        out["recursion_limit"] = recursion_limit
    if metadata is not None:
        out["metadata"] = metadata
    return out


def run_config(key: str, checkpoint_id: str | None, rc: pb.RunConfig | None, *, default_recursion_limit: int | None) -> dict[str, Any]:
    """A run's config: its thread, version, recursion limit, metadata and configurable (``RunConfig``'s)."""
    limit = default_recursion_limit
    metadata = None
    extra = None
    if rc is not None:
        extra = configurable(rc.configurable_json, "config.configurable_json")
        if rc.HasField("recursion_limit"):
            if rc.recursion_limit < 1:
                raise bad("config.recursion_limit", "must be at least 1")
            limit = rc.recursion_limit
        if rc.metadata_json:
            size = len(rc.metadata_json.encode())
            if size > MAX_METADATA_BYTES:
                raise RpcError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"config.metadata_json: {size} bytes; run metadata is at most {MAX_METADATA_BYTES}",
                )
            meta = decode_json(rc.metadata_json, "config.metadata_json")
            if meta is not None and not isinstance(meta, dict):
                raise bad("config.metadata_json", "must be a JSON object")
            metadata = meta or {}
    cid = ident(checkpoint_id, "checkpoint_id") if checkpoint_id else None
    out = config(key, cid, recursion_limit=limit, metadata=metadata, extra=extra)
    if rc is not None and rc.tags:
        out["tags"] = run_tags(rc.tags)
    return out


#: The most tags a run may have, and the longest one.
MAX_TAGS, MAX_TAG_CHARS = 64, 256


def run_tags(tags: Any) -> list[str]:
    """A run's tags (``RunConfig.tags``), checked: non-empty strings, at most :data:`MAX_TAGS` of
    :data:`MAX_TAG_CHARS` characters (the runtime merges them into the config as LangChain does)."""
    if len(tags) > MAX_TAGS:
        raise bad("config.tags", f"{len(tags)} tags; a run has at most {MAX_TAGS}")
    for tag in tags:
        if not tag or len(tag) > MAX_TAG_CHARS:
            raise bad("config.tags", f"each tag is 1 to {MAX_TAG_CHARS} characters, not {len(tag)}")
    return list(tags)


def configurable(text: str, field: str) -> dict[str, Any] | None:
    """A request's ``configurable_json``: None when empty, else a JSON object with none of the
    service's keys (INVALID_ARGUMENT naming the key; RESOURCE_EXHAUSTED over run metadata's limit)."""
    if not text:
        return None
    size = len(text.encode())
    if size > MAX_METADATA_BYTES:
        raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"{field}: {size} bytes; a run's configurable is at most {MAX_METADATA_BYTES}")
    found = decode_json(text, field)
    if found is None:
        return None
    if not isinstance(found, dict):
        raise bad(field, f"must be a JSON object, not {type(found).__name__}")
    for k in found:
        if k in RESERVED_CONFIGURABLE or k.startswith("__"):
            why = "is the service's own" if k in RESERVED_CONFIGURABLE else "starts with '__', which the engine's keys use"
            raise bad(f"{field}.{k}", f"the key {k!r} {why}: a caller cannot set it (the thread and version have fields of their own)")
    return found


def run_context(graph: Pregel, text: str) -> Any:
    """``RunConfig.context_json`` as the run's context, checked against the graph's ``context_schema``."""
    size = len(text.encode())
    if size > MAX_CONTEXT_BYTES:
        raise RpcError(
            grpc.StatusCode.RESOURCE_EXHAUSTED, f"config.context_json: {size} bytes; a run's context is at most {MAX_CONTEXT_BYTES}"
        )
    data = decode_json(text, "config.context_json")
    try:
        return context_from_json(graph.context_schema, data)
    except ContextError as e:
        raise bad(f"config.context_json.{e.field}" if e.field else "config.context_json", e.reason) from None


def run_options(graph: Pregel, rc: pb.RunConfig | None, event_kinds: Any) -> tuple[frozenset[type] | None, dict[str, Any]]:
    """(the event classes the caller wants, None: all; the engine's run options from ``RunConfig``)."""
    kinds = set()
    for k in event_kinds:
        cls = CLASS_OF.get(k)
        if cls is None:
            raise bad("event_kinds", f"unknown event kind {k}")
        kinds.add(cls)
    if ev.CallbackEvent in kinds and langchain_messages() is None:
        raise bad("event_kinds", "EVENT_KIND_CALLBACK is LangChain's callback events: it needs langchain-core, which this server lacks")
    # What the caller sees: its kinds plus the first and last events.
    wanted = frozenset(kinds) | {ev.RunStarted, ev.RunFinished} if kinds else None
    opts: dict[str, Any] = {}
    if rc is not None:
        if rc.durability not in _DURABILITY:
            raise bad("config.durability", f"unknown value {rc.durability}")
        opts["durability"] = _DURABILITY[rc.durability]
        for field in ("interrupt_before", "interrupt_after"):
            names = list(getattr(rc, field))
            for n in names:
                if n != "*" and n not in graph.nodes:
                    raise bad(f"config.{field}", f"unknown node {n!r}")
            if names:  # "*" (every node) as LangGraph takes it: the string, which a list holding it is not
                opts[field] = "*" if "*" in names else names
        if rc.context_json:
            opts["context"] = run_context(graph, rc.context_json)
    return wanted, opts


def invoke_input(graph: Pregel, request: pb.InvokeRequest) -> Any:
    """An Invoke's input: a JSON object of state keys, or null (any JSON for an entrypoint); or its ``command_json``."""
    if request.command_json.strip():
        if request.input_json.strip() not in ("", "null"):
            raise bad("command_json", "set either input_json or command_json, not both")
        return _command(graph, decode_json(request.command_json, "command_json"))
    inp = messages_in(decode_json(request.input_json, "input_json"), "input_json")
    if inp is not None and not isinstance(inp, dict) and not isinstance(graph, EntrypointGraph):
        raise bad("input_json", f"must be a JSON object of state keys or null, not {type(inp).__name__}")
    return inp


def _command(graph: Pregel, value: Any) -> Command[Any]:
    """``command_json`` read as LangGraph's Command: ``update``, ``goto`` (names or Send objects), ``resume``."""
    if not isinstance(value, dict):
        raise bad("command_json", "must be a JSON object with update, goto or resume")
    for key in value:
        if key not in ("update", "goto", "resume"):
            raise bad(f"command_json.{key}", "not a Command field (update, goto, resume)")
    update = value.get("update")
    if isinstance(update, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in update):
        update = [tuple(p) for p in update]  # LangGraph's [[key, value], ...] form
    elif update is not None and not isinstance(update, dict):
        raise bad("command_json.update", "a JSON object of state keys, or a list of [key, value] pairs")
    goto = value.get("goto")
    targets = [] if goto is None else goto if isinstance(goto, list) else [goto]
    sends: list[str | Send] = []
    for target in targets:
        if isinstance(target, dict) and set(target) == {"node", "input"}:
            node, send = target["node"], True
        elif isinstance(target, str):
            node, send = target, False
        else:
            raise bad("command_json.goto", 'a node name, a list of them, or {"node": ..., "input": ...} objects')
        if not isinstance(node, str) or (node not in graph.nodes and node != END):
            raise bad("command_json.goto", f"unknown node {node!r}")
        sends.append(Send(node, messages_in(target["input"], "command_json.goto")) if send else node)
    return Command(
        update=messages_in(update, "command_json.update"), goto=sends, resume=value.get("resume"),
    )  # fmt: skip


def as_node(graph: Pregel | None, request: pb.UpdateStateRequest | pb.ForkRequest) -> str | None:
    """The request's ``as_node``: None, or a node of ``graph`` (None: a subgraph's, the engine checks it)."""
    name = request.as_node if request.HasField("as_node") else None
    if name is not None and graph is not None and name not in graph.nodes:
        raise bad("as_node", f"unknown node {name!r}")
    return name


def fork_update(request: pb.ForkRequest) -> Any:
    """A Fork's update (:data:`NO_UPDATE` without one)."""
    update = decode_json(request.update_json, "update_json", default=NO_UPDATE)
    return messages_in(update, "update_json") if update is not NO_UPDATE else update


def update_values(request: pb.UpdateStateRequest) -> dict[str, Any] | None:
    """An UpdateState's values: a JSON object of state keys, or None (``null``: no writes, as LangGraph's
    ``update_state(config, None, as_node)``)."""
    values = messages_in(decode_json(request.values_json, "values_json"), "values_json")
    if values is None and request.values_json.strip() == "null":
        return None
    if not isinstance(values, dict):
        raise bad("values_json", "required: a JSON object of state keys, or null for no writes")
    return values


def resume_answers(request: pb.ResumeRequest) -> dict[str, Any]:
    """A Resume's answers as :meth:`~engine.pregel.Pregel.aplan_resume`'s ``answer=`` or ``answers=``.

    One answer (``resume_json``: the first interrupt pending when the call
    arrives, or, ``null`` at a static breakpoint, "continue"), or a map of
    interrupt id to answer (``resumes_json``).
    """
    has_one = bool(request.resume_json.strip())
    if has_one and request.resumes_json:
        raise bad("resumes_json", "set either resume_json or resumes_json, not both")
    if not has_one and not request.resumes_json:
        raise bad("resume_json", 'required (or resumes_json); send "null" for no answer')
    if request.resumes_json:
        return {"answers": {k: decode_json(v, f"resumes_json[{k!r}]") for k, v in request.resumes_json.items()}}
    return {"answer": decode_json(request.resume_json, "resume_json")}


def history_filter(request: pb.ListHistoryRequest) -> dict[str, Any] | None:
    """ListHistory's ``filter_json``: None, or a JSON object of metadata keys to plain values."""
    found = decode_json(request.filter_json, "filter_json")
    if found is None:
        return None
    if not isinstance(found, dict):
        raise bad("filter_json", "must be a JSON object")
    for k, v in found.items():
        if isinstance(v, (dict, list)):
            raise bad("filter_json", f"value of {k!r} must be a string, number, boolean or null")
    return found
