"""A run's HTTP body, as the LangGraph SDKs send it, checked whole into the run call it asks for.

The SDKs post one JSON object for ``/threads/{id}/runs/stream``, ``/wait``,
``/runs`` and their stateless twins. :func:`parse_run_body` reads it into a
:class:`RunBody`: the gRPC request the run core takes (an Invoke, whose
``command_json`` carries a command with ``update`` or ``goto``; or a Resume
for ``command.resume`` alone) and what the HTTP side does with the events
(stream modes, subgraphs, resumable, what happens to a stateless run's thread).

Every field LangGraph defines is either honoured or refused by name
(INVALID_ARGUMENT, which the HTTP face answers 422): an option graphwire cannot
honour yet (``feedback_keys``...) is never dropped in silence, and a key LangGraph does not define is refused too.

Pure: no I/O.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._json import encode
from server.http._sse import check_modes, event_kinds

__all__ = ["RunBody", "parse_run_body"]

_STRATEGY = {
    "reject": pb.MULTITASK_STRATEGY_REJECT, "enqueue": pb.MULTITASK_STRATEGY_ENQUEUE,
    "interrupt": pb.MULTITASK_STRATEGY_INTERRUPT, "rollback": pb.MULTITASK_STRATEGY_ROLLBACK,
}  # fmt: skip
_DURABILITY = {"sync": pb.DURABILITY_SYNC, "async": pb.DURABILITY_ASYNC, "exit": pb.DURABILITY_EXIT}
_DISCONNECT = {"cancel": pb.ON_DISCONNECT_CANCEL, "continue": pb.ON_DISCONNECT_CONTINUE}
#: Fields graphwire does not honour yet, and why (refused whenever they ask for something).
_NOT_SERVED = {
    "feedback_keys": "LangSmith feedback is not served",
    "langsmith_tracer": "LangSmith tracing is not served",
    "strict_resume": "strict_resume is not served yet",
}
_KNOWN = {
    "assistant_id", "input", "command", "stream_mode", "stream_subgraphs", "stream_resumable", "config", "context",
    "metadata", "interrupt_before", "interrupt_after", "checkpoint", "checkpoint_id", "checkpoint_during",
    "multitask_strategy", "if_not_exists", "on_disconnect", "on_completion", "durability", "webhook", "after_seconds", *_NOT_SERVED,
}  # fmt: skip
_CONFIG = {"configurable", "recursion_limit", "metadata", "tags"}
#: configurable keys the server sets itself, which a RemoteGraph may pass along from its own run.
_OWN = ("thread_id", "checkpoint_ns")
_INTERRUPT_ID = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True, slots=True)
class RunBody:
    """A run call over HTTP, every field checked."""

    #: What the run core runs (its ``graph`` is left to the assistant's resolution).
    request: pb.InvokeRequest | pb.ResumeRequest
    #: The stream modes (LangGraph's names) and whether subgraphs' events are sent.
    modes: tuple[str, ...]
    subgraphs: bool
    #: Whether a client may rejoin the stream with Last-Event-ID (the run keeps its events).
    resumable: bool
    #: ``if_not_exists``: "reject" (LangGraph's default: an unknown thread is 404) or "create" (the run makes it).
    if_not_exists: str
    #: Stateless runs: whether the thread made for the run is kept after it ("keep") or deleted.
    on_completion: str
    #: The URL the run is POSTed to once it ended (server.http._webhooks), or None.
    webhook: str | None = None
    #: ``after_seconds``: a run that starts this many seconds later, kept meanwhile (server.http._delayed), or None.
    after_seconds: float | None = None


def _bad(field: str, message: str) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {message}")


def _choice(body: Mapping[str, Any], field: str, table: Mapping[str, Any], default: str | None = None) -> Any:
    value = body.get(field, default)
    if value is None:
        return None
    if value not in table:
        raise _bad(field, f"{value!r} is not one of {', '.join(map(repr, table))}")
    return table[value]


def _names(body: Mapping[str, Any], field: str) -> list[str]:
    value = body.get(field)
    if value is None:
        return []
    if value == "*":
        return ["*"]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(field, 'a list of node names, or "*"')
    return value


def _object(value: Any, field: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _bad(field, "a JSON object")
    return value


def _run_config(body: Mapping[str, Any], thread_id: str) -> tuple[pb.RunConfig, str | None]:
    """The run's config, and the checkpoint id its ``configurable`` names (a RemoteGraph's), if any."""
    config = _object(body.get("config"), "config")
    for key in config:
        if key not in _CONFIG:
            raise _bad(f"config.{key}", f"not served (graphwire takes {', '.join(sorted(_CONFIG))})")
    rc = pb.RunConfig()
    tags = config.get("tags")
    if tags is not None:
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise _bad("config.tags", "a list of strings")
        rc.tags.extend(tags)
    configurable = dict(_object(config.get("configurable"), "config.configurable"))
    for key in _OWN:  # the server's own: the path's thread, the graph's namespace
        if key in configurable and configurable[key] not in (thread_id, ""):
            raise _bad(f"config.configurable.{key}", f"{configurable[key]!r} is not this call's ({thread_id!r})")
        configurable.pop(key, None)
    named = configurable.pop("checkpoint_id", None)
    if configurable:
        rc.configurable_json = encode(configurable)
    if "recursion_limit" in config:
        limit = config["recursion_limit"]
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise _bad("config.recursion_limit", "a positive integer")
        rc.recursion_limit = limit
    metadata = {**_object(config.get("metadata"), "config.metadata"), **_object(body.get("metadata"), "metadata")}
    if metadata:
        rc.metadata_json = encode(metadata)
    if body.get("context") is not None:
        rc.context_json = encode(_object(body["context"], "context"))
    rc.interrupt_before.extend(_names(body, "interrupt_before"))
    rc.interrupt_after.extend(_names(body, "interrupt_after"))
    durability = _choice(body, "durability", _DURABILITY)
    during = body.get("checkpoint_during")
    if during is not None:
        if durability is not None:
            raise _bad("checkpoint_during", "give durability alone (checkpoint_during is its older name)")
        durability = pb.DURABILITY_ASYNC if during else pb.DURABILITY_EXIT
    if durability is not None:
        rc.durability = durability
    return rc, named if isinstance(named, str) and named else None


def _checkpoint_id(body: Mapping[str, Any], named: str | None) -> str | None:
    found = body.get("checkpoint_id")
    checkpoint = body.get("checkpoint")
    if checkpoint is not None:
        checkpoint = _object(checkpoint, "checkpoint")
        if checkpoint.get("checkpoint_ns"):
            raise _bad("checkpoint.checkpoint_ns", "a subgraph's version cannot be run from")
        extra = set(checkpoint) - {"checkpoint_id", "checkpoint_ns", "thread_id", "checkpoint_map"}
        if extra:
            raise _bad(f"checkpoint.{sorted(extra)[0]}", "not a checkpoint field")
        found = found or checkpoint.get("checkpoint_id")
    found = found or named
    if found is not None and not isinstance(found, str):
        raise _bad("checkpoint_id", "a string")
    return found or None


def _command(body: Mapping[str, Any]) -> tuple[bool, Any, dict[str, Any] | None]:
    """(whether the body resumes alone, the answer, a whole Command when it updates or goes to nodes)."""
    command = body.get("command")
    if command is None:
        return False, None, None
    command = _object(command, "command")
    for key in command:
        if key not in ("resume", "update", "goto"):
            raise _bad(f"command.{key}", "not a command field (resume, update, goto)")
    if body.get("input") is not None:
        raise _bad("input", "give input or command, not both")
    whole = {k: v for k, v in command.items() if v not in (None, [], {}) or (k == "resume" and v is not None)}
    if set(whole) - {"resume"}:  # update or goto: the Command goes whole to the run core (Invoke's command_json)
        return False, None, whole
    if "resume" not in command:
        raise _bad("command", "give resume, update or goto")
    return True, command["resume"], None


def _webhook(url: Any, deleted: bool) -> str | None:
    """A run's ``webhook``: an http(s) URL, for a run whose record outlives it."""
    if url is None or url == "":
        return None
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")) or len(url) > 2048:
        raise _bad("webhook", "an http:// or https:// URL (at most 2048 characters)")
    if deleted:
        raise _bad("webhook", "a stateless run's thread and record are deleted after it: send on_completion='keep' with a webhook")
    return url


#: The longest a run may be delayed: a day (LangGraph sets no bound; a cron is for later starts).
MAX_DELAY = 86_400


def _delay(value: Any, *, stateless: bool) -> float | None:
    """``after_seconds``: a positive number of seconds (at most :data:`MAX_DELAY`), for a run on a thread."""
    if value is None or value == 0:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= MAX_DELAY:
        raise _bad("after_seconds", f"a number of seconds, more than 0 and at most {MAX_DELAY}")
    if stateless:
        raise _bad("after_seconds", "a delayed run is served on a thread (a stateless run's thread is made when it starts)")
    return float(value)


#: What LangGraph's RemoteGraph, a node of a graph LangGraph runs, passes in ``configurable`` from its task.
_RESUMING, _RESUME_MAP, _DURABILITY_KEY = "__pregel_resuming", "__pregel_resume_map", "__pregel_durability"


def _as_langgraph_node(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with LangGraph's engine keys a RemoteGraph node passes along taken as the run's fields.

    LangGraph's RemoteGraph, run as a node, sends its task's ``__pregel_durability`` (the parent call's
    durability), and when the parent is resumed ``__pregel_resuming`` with, for answers given by interrupt
    id, ``__pregel_resume_map``; its input is the task's input again. As LangGraph's server runs them: the
    answers resume the thread's interrupts (``command.resume``); resuming without answers goes on from the
    thread's state (no input), so its pending question is asked again.
    """
    config = body.get("config")
    if not isinstance(config, dict):
        return body
    configurable = config.get("configurable")
    if not isinstance(configurable, dict) or not {_RESUMING, _RESUME_MAP, _DURABILITY_KEY} & set(configurable):
        return body
    configurable = dict(configurable)
    resuming, answers, durability = configurable.pop(_RESUMING, None), configurable.pop(_RESUME_MAP, None), configurable.pop(_DURABILITY_KEY, None)
    body = {**body, "config": {**config, "configurable": configurable}}
    if durability is not None and body.get("durability") is None and body.get("checkpoint_during") is None:
        body["durability"] = durability
    if body.get("command") is None:
        if isinstance(answers, dict) and answers:
            body["command"], body["input"] = {"resume": answers}, None
        elif resuming is True:
            body["input"] = None
    return body


def parse_run_body(body: Any, thread_id: str, *, stateless: bool = False, background: bool = False) -> RunBody:
    """``body`` checked whole (INVALID_ARGUMENT naming the first bad field) into a :class:`RunBody`."""
    if not isinstance(body, dict):
        raise _bad("body", "a JSON object")
    for key in body:
        if key not in _KNOWN:
            raise _bad(key, "not a field of a LangGraph run")
        if key in _NOT_SERVED and body[key] not in (None, [], 0, False):
            raise _bad(key, _NOT_SERVED[key])
    assistant = body.get("assistant_id")
    if not isinstance(assistant, str) or not assistant:
        raise _bad("assistant_id", "required: an assistant's id, or a graph's name")
    try:
        modes = check_modes(body.get("stream_mode"))
    except ValueError as e:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, str(e)) from None
    body = _as_langgraph_node(body)
    rc, named = _run_config(body, thread_id)
    resumes, answer, whole = _command(body)
    # LangGraph's server queues a run on a busy thread unless told otherwise (and records a stateless run so too,
    # whose thread is its own).
    strategy = _choice(body, "multitask_strategy", _STRATEGY, default="enqueue")
    on_disconnect = _choice(body, "on_disconnect", _DISCONNECT)
    if_not_exists = body.get("if_not_exists") or "reject"  # LangGraph's default: a run on an unknown thread is 404
    if if_not_exists not in ("create", "reject"):
        raise _bad("if_not_exists", f"{if_not_exists!r} is not one of 'create', 'reject'")
    on_completion = body.get("on_completion") or ("delete" if stateless else "keep")
    if on_completion not in ("delete", "keep"):
        raise _bad("on_completion", f"{on_completion!r} is not one of 'delete', 'keep'")
    if on_completion == "delete" and not stateless:
        raise _bad("on_completion", "only a stateless run's thread is deleted after it")
    resumable = bool(body.get("stream_resumable"))
    webhook = _webhook(body.get("webhook"), stateless and on_completion == "delete")
    common: dict[str, Any] = {
        "thread_id": thread_id, "assistant_id": assistant, "config": rc, "event_kinds": event_kinds(modes), "background": background,
        # A resumable stream's run keeps its events (a request id does that), so a client rejoins it.
        "request_id": f"http-{uuid.uuid4()}" if resumable else "",
    }  # fmt: skip
    if strategy is not None:
        common["multitask_strategy"] = strategy
    if on_disconnect is not None:
        common["on_disconnect"] = on_disconnect
    checkpoint_id = _checkpoint_id(body, named)
    request: pb.InvokeRequest | pb.ResumeRequest
    if resumes:
        if checkpoint_id is not None:
            raise _bad("checkpoint_id", "a resume answers the thread's newest version's interrupt")
        request = pb.ResumeRequest(**common)
        if isinstance(answer, dict) and answer and all(isinstance(k, str) and _INTERRUPT_ID.match(k) for k in answer):
            for k, v in answer.items():  # answers by interrupt id
                request.resumes_json[k] = encode(v)
        else:
            request.resume_json = encode(answer)
    else:
        request = pb.InvokeRequest(**common)
        if body.get("input") is not None:
            request.input_json = encode(body["input"])
        if whole is not None:
            request.command_json = encode(whole)
        if checkpoint_id is not None:
            request.checkpoint_id = checkpoint_id
    after = _delay(body.get("after_seconds"), stateless=stateless)
    return RunBody(request, modes, bool(body.get("stream_subgraphs")), resumable, if_not_exists, on_completion, webhook, after)
