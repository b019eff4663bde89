"""One side of ``graphwire check``: a graph run turn by turn on one runtime, what it did written as JSON.

Run as ``python -m server._check_side RUNTIME SPEC OUT TURNS_JSON`` in a process
of its own (``graphwire check`` starts one per runtime): ``RUNTIME`` is
``langgraph`` (the module imports LangGraph itself) or ``engine`` (the import
swap on, so its ``langgraph`` imports get the engine). Each side runs the graph
on an in-memory checkpointer of its runtime (the graph's own database is never
written), on one thread, and records after each turn what the turn returned
(or raised) and the thread's state, and at the end the thread's whole history.
Ids and times are replaced by placeholders numbered in order of appearance
(``<id1>``, ``<time>``), so two runs compare on what they did, not on the
uuids they drew.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import json
import re
import sys
import traceback
from collections.abc import Mapping
from typing import Any

__all__ = ["Masker", "plain"]

THREAD = "graphwire-check"
_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # a uuid, a checkpoint or task id
    r"|\b[0-9a-f]{32}\b"  # an interrupt id
)
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?$")
_DROPPED = frozenset({"created_at", "run_id", "thread_ts", "ts"})


class Masker:
    """Replaces ids with ``<idN>`` by first appearance, so equal structures of references compare equal."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def text(self, s: str) -> str:
        if _TIME.match(s):
            return "<time>"
        return _ID.sub(self._one, s)

    def _one(self, m: re.Match[str]) -> str:
        return self.seen.setdefault(m.group(0), f"<id{len(self.seen) + 1}>")


def plain(value: Any, mask: Masker, depth: int = 0) -> Any:
    """``value`` as JSON data, ids masked: messages and models by their fields, other objects by type and fields."""
    if depth > 60:
        return "<too deep>"
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return mask.text(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, Mapping):
        return {mask.text(str(k)): plain(v, mask, depth + 1) for k, v in value.items() if k not in _DROPPED}
    if isinstance(value, (list, tuple)):
        return [plain(v, mask, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v, mask, depth + 1) for v in value), key=repr)
    kind = type(value).__name__  # a class's name, not its module: langgraph.types.Send and engine.types.Send are one
    if hasattr(value, "model_dump"):  # a LangChain message, a pydantic model
        return {"<type>": kind, **plain(value.model_dump(), mask, depth + 1)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {"<type>": kind, **plain(fields, mask, depth + 1)}
    if hasattr(value, "_asdict"):
        return {"<type>": kind, **plain(value._asdict(), mask, depth + 1)}
    if hasattr(value, "__dict__"):
        return {"<type>": kind, **plain(vars(value), mask, depth + 1)}
    return {"<type>": kind, "<repr>": mask.text(repr(value))}


def _error(e: BaseException, mask: Masker) -> dict[str, Any]:
    return {"<raised>": type(e).__name__, "message": mask.text(str(e))}


def _snapshot(s: Any, mask: Masker) -> dict[str, Any]:
    """A state snapshot as compared: values, what runs next, its metadata and its tasks."""
    meta = dict(s.metadata or {})
    return {
        "values": plain(s.values, mask),
        "next": list(s.next),
        "metadata": plain({k: v for k, v in meta.items() if k in ("source", "step", "writes")}, mask),
        "tasks": [
            {
                "name": t.name,
                "error": None if t.error is None else plain(repr(t.error), mask),
                "interrupts": [plain(i.value, mask) for i in t.interrupts],
            }
            for t in s.tasks
        ],
        "interrupts": [plain(i.value, mask) for i in getattr(s, "interrupts", ())],
    }


async def _graph(obj: Any) -> Any:
    """The graph a spec names, on an in-memory checkpointer of this runtime."""
    from langgraph.checkpoint.memory import InMemorySaver  # the engine's under the swap

    from server._registry import _check_arguments

    if not hasattr(obj, "invoke") and not hasattr(obj, "compile") and callable(obj):
        made = obj({"configurable": {}}) if _check_arguments(obj, "check", "check") else obj()
        obj = await made if inspect.isawaitable(made) else made
        if hasattr(obj, "__aenter__"):  # a factory that is an async context manager
            obj = await obj.__aenter__()
    if hasattr(obj, "compile") and not hasattr(obj, "invoke"):
        return obj.compile(checkpointer=InMemorySaver())
    if hasattr(obj, "ainvoke") and hasattr(obj, "aget_state"):
        graph = copy.copy(obj)
        graph.checkpointer = InMemorySaver()
        return graph
    raise SystemExit(f"graphwire check: the spec names a {type(obj).__name__}, not a graph, a builder or a function returning one")


async def run(spec: str, turns: list[tuple[str, Any]]) -> dict[str, Any]:
    """What the graph did, turn by turn, then its history."""
    from langgraph.types import Command

    from server._specs import resolve_spec

    mask = Masker()
    graph = await _graph(resolve_spec(spec, name="check"))
    config = {"configurable": {"thread_id": THREAD}}
    done: list[dict[str, Any]] = []
    for kind, value in turns:
        sent = Command(resume=value) if kind == "resume" else value
        try:
            result: Any = plain(await graph.ainvoke(sent, config), mask)
        except Exception as e:  # noqa: BLE001 (what a turn raised is part of what the graph did)
            result = _error(e, mask)
        done.append({"turn": f"{kind} {json.dumps(value)[:60]}", "result": result, "state": _snapshot(await graph.aget_state(config), mask)})
    history = [_snapshot(s, mask) async for s in graph.aget_state_history(config)]
    return {"turns": done, "history": history}


def main(argv: list[str]) -> int:
    runtime, spec, out, turns = argv
    if runtime == "engine":
        import engine.swap

        engine.swap.install()
    try:
        found = asyncio.run(run(spec, [(k, v) for k, v in json.loads(turns)]))
    except SystemExit:
        raise
    except BaseException as e:  # the graph failed to load or to run outside a turn: say it on this side
        found = {"failed": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc(limit=8)}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(found, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
