"""The langgraph-sdk programs bench/http_vs_langgraph_dev.py runs against each server, and how what they
saw is masked and compared.

Each program is an ordinary async ``langgraph-sdk`` program on bench/peers_app's
``chat`` graph (or the store); it returns what it saw as a list of
``(label, value)``: every SSE part of a stream, every answer of a call, or
the error a call raised (its class and HTTP status). The same program runs
against both servers; :func:`mask` then replaces what differs between two
runs by nature (ids become ``<id#n>`` tokens numbered by first appearance, so
links between ids still compare; times become ``<time>``), and :func:`diff`
lists the paths whose values differ, which :func:`grouped` folds where only a
list index or an occurrence differs.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

Seen = list[tuple[str, Any]]

_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b|\b[0-9a-f]{16}\b")
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?$")
ABSENT = "<absent>"


def _user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def _caught(seen: Seen, label: str, call: Awaitable[Any]) -> Any:
    """``call``'s answer recorded under ``label``, or the error it raised (class and HTTP status)."""
    try:
        value = await call
    except Exception as exc:  # what a program sees is the comparison, errors included
        status = getattr(getattr(exc, "response", None), "status_code", None)
        seen.append((label, {"error": type(exc).__name__, "status": status}))
        return None
    seen.append((label, value))
    return value


async def _stream(seen: Seen, label: str, parts: Any) -> None:
    try:
        async for part in parts:
            seen.append((f"{label}: {part.event}", part.data))
    except Exception as exc:  # as _caught
        status = getattr(getattr(exc, "response", None), "status_code", None)
        seen.append((label, {"error": type(exc).__name__, "status": status}))


async def chat_streamed(client: Any) -> Seen:
    """A multi-turn chat with tool calls, streamed in messages-tuple and values modes, then its state."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="chat"))["thread_id"]
    for text in ("weather in Oslo", "weather in Rome"):
        await _stream(seen, text, client.runs.stream(thread, "chat", input=_user(text), stream_mode=["messages-tuple", "values"]))
    state = await _caught(seen, "state", client.threads.get_state(thread))
    if state is not None:
        seen.append(("state values", state["values"]))
    return seen


async def interrupt_resumed(client: Any) -> Seen:
    """A tool that asks first (``interrupt``), answered with ``command={"resume": ...}``."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="chat"))["thread_id"]
    await _caught(seen, "asked", client.runs.wait(thread, "chat", input=_user("book Paris")))
    await _caught(seen, "thread while asked", client.threads.get(thread))
    await _caught(seen, "answered", client.runs.wait(thread, "chat", command={"resume": "yes"}))
    await _caught(seen, "runs", client.runs.list(thread))
    return seen


async def history_forked(client: Any) -> Seen:
    """Two turns, the thread's history, and a run from the version after the first turn (a fork)."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="chat"))["thread_id"]
    for text in ("weather in Oslo", "weather in Rome"):
        await _caught(seen, text, client.runs.wait(thread, "chat", input=_user(text)))
    history = await _caught(seen, "history", client.threads.get_history(thread))
    ends = [h for h in history or [] if not h["next"]]  # the versions where a turn ended, newest first
    if len(ends) >= 2:
        older = ends[1]["checkpoint"]["checkpoint_id"]
        await _caught(seen, "fork", client.runs.wait(thread, "chat", input=_user("weather in Lima"), checkpoint_id=older))
        await _caught(seen, "state after the fork", client.threads.get_state(thread))
        await _caught(seen, "history after the fork", client.threads.get_history(thread, limit=3))
    return seen


async def background_joined(client: Any) -> Seen:
    """A background run (``runs.create``), joined, then read back."""
    seen: Seen = []
    thread = (await client.threads.create(graph_id="chat"))["thread_id"]
    run = await _caught(seen, "created", client.runs.create(thread, "chat", input=_user("weather in Kyiv")))
    if run is not None:
        seen[-1] = ("created", {k: v for k, v in run.items() if k != "status"})  # pending or already running: a race
        await _caught(seen, "joined", client.runs.join(thread, run["run_id"]))
        await _caught(seen, "got", client.runs.get(thread, run["run_id"]))
    return seen


async def store_calls(client: Any) -> Seen:
    """Store items: put, get, search, namespaces, delete."""
    seen: Seen = []
    await _caught(seen, "put", client.store.put_item(["peers", "notes"], "k1", {"text": "first"}))
    await _caught(seen, "put 2", client.store.put_item(["peers", "other"], "k2", {"text": "second", "n": 2}))
    await _caught(seen, "get", client.store.get_item(["peers", "notes"], "k1"))
    await _caught(seen, "search", client.store.search_items(["peers"]))
    await _caught(seen, "search filtered", client.store.search_items(["peers"], filter={"n": 2}))
    await _caught(seen, "namespaces", client.store.list_namespaces(prefix=["peers"]))
    await _caught(seen, "delete", client.store.delete_item(["peers", "notes"], "k1"))
    await _caught(seen, "get deleted", client.store.get_item(["peers", "notes"], "k1"))
    return seen


PROGRAMS: dict[str, Callable[[Any], Awaitable[Seen]]] = {
    "chat streamed (messages-tuple, values)": chat_streamed,
    "interrupt, command resume": interrupt_resumed,
    "history and a fork": history_forked,
    "background run joined": background_joined,
    "store": store_calls,
}


#: Keys whose ids are numbered by kind (``<run#1>``): a record's own ids, which link records to each other.
_KINDS = {"run_id": "run", "thread_id": "thread", "checkpoint_id": "checkpoint", "parent_checkpoint_id": "checkpoint",
          "assistant_id": "assistant"}  # fmt: skip


def mask(value: Any, ids: dict[str, str] | None = None, key: str = "") -> Any:
    """``value`` with times as ``<time>`` and ids masked: an id under a key of :data:`_KINDS` becomes
    ``<kind#n>`` (numbered by first appearance in ``ids``, and the same token wherever it appears again);
    any other id (a message's, an interrupt's, a task's) becomes ``<id>``."""
    ids = {} if ids is None else ids

    def token(found: str) -> str:
        if found in ids:
            return ids[found]
        kind = _KINDS.get(key)
        if kind is None:
            return "<id>"
        n = 1 + sum(1 for t in ids.values() if t.startswith(f"<{kind}#"))
        return ids.setdefault(found, f"<{kind}#{n}>")

    def one(text: str) -> str:
        return "<time>" if _TIME.match(text) else _ID.sub(lambda m: token(m.group(0)), text)

    if isinstance(value, str):
        return one(value)
    if isinstance(value, dict):
        return {_ID.sub(lambda m: ids.get(m.group(0), "<id>"), str(k)): mask(v, ids, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask(v, ids, key) for v in value]
    return value


def diff(a: Any, b: Any, path: str, out: list[tuple[str, Any, Any]]) -> None:
    """Append ``(path, a's value, b's value)`` for every leaf where ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*a, *(k for k in b if k not in a)]:
            diff(a.get(k, ABSENT), b.get(k, ABSENT), f"{path}.{k}" if path else str(k), out)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            diff(a[i] if i < len(a) else ABSENT, b[i] if i < len(b) else ABSENT, f"{path}[{i}]", out)
    elif a != b:
        out.append((path, a, b))


_INDEX = re.compile(r"\[\d+\]| #\d+")


def grouped(found: list[tuple[str, Any, Any]]) -> list[tuple[str, int, Any, Any]]:
    """``found`` with the paths that differ only by list indexes or occurrences folded into one, where
    their values differ alike (the same two values, or one side absent): ``(path with [*] and #*, how
    many, a, b)`` with the first pair's values, in order of first appearance."""
    out: dict[tuple[str, str, str], tuple[str, int, Any, Any]] = {}
    for path, a, b in found:
        general = _INDEX.sub(lambda m: " #*" if m.group(0).startswith(" ") else "[*]", path)
        k = (general, ABSENT if a == ABSENT else repr(a) * (b != ABSENT), ABSENT if b == ABSENT else repr(b) * (a != ABSENT))
        seen = out.get(k)
        out[k] = (general if seen else path, (seen[1] if seen else 0) + 1, a, b)
    return list(out.values())
