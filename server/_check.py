"""``graphwire check``: run a graph on LangGraph and on the engine, turn by turn, and say where they differ.

A team deciding whether its agent may move to the engine (and the engine's
developers, given a difference a user met) runs::

    graphwire check ./agent.py:graph --input '{"messages": [["user", "hi"]]}' --resume '"yes"'

Each runtime runs the graph in a process of its own (:mod:`server._check_side`):
LangGraph as the module imports it, the engine with the import swap on. Both
get the same turns (``--input`` starts a turn with input, ``--resume``
answers the pending interrupt; in the order given) on an in-memory
checkpointer. What each turn returned or raised, the state after it, and the
thread's whole history are compared with ids and times masked; the paths
that differ are printed as ``path: langgraph ... vs engine ...``.

Exit status: 0 when both runtimes did the same, 1 when they differ, 2 when
the check could not run (LangGraph is not installed, a side could not load
the graph).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "differences"]

RUNTIMES = ("langgraph", "engine")
_SHOWN = 20


class _Turn(argparse.Action):
    """``--input`` and ``--resume`` into one list, in the order given, each value JSON."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        try:
            value = json.loads(values)
        except json.JSONDecodeError as e:
            parser.error(f"{option_string} {values!r} is not JSON: {e}")
        turns = list(getattr(namespace, "turns", None) or [])
        turns.append(("resume" if option_string == "--resume" else "input", value))
        namespace.turns = turns


def add_parser(sub: Any) -> None:
    c = sub.add_parser(
        "check",
        help="run a graph on LangGraph and on the engine, turn by turn, and print where they differ",
        description="Runs SPEC on LangGraph (installed beside graphwire) and on graphwire's engine, each on an "
        "in-memory checkpointer, with the same turns, and prints where what a turn returned or raised, the "
        "state after it or the thread's history differ (ids and times aside). Exit 0: the same; 1: differences; "
        "2: the check could not run.",
    )
    c.add_argument("spec", help="the graph, as --graph takes it: ./file.py:attr or package.module:attr")
    c.add_argument("--input", action=_Turn, metavar="JSON", help="a turn with this input (repeatable)")
    c.add_argument("--resume", action=_Turn, metavar="JSON", help="a turn answering the pending interrupt (repeatable)")
    c.add_argument("-v", "--verbose", action="store_true", help=f"print every difference (default: the first {_SHOWN})")
    c.set_defaults(func=check, turns=[])


def check(args: argparse.Namespace) -> int:
    if not args.turns:
        print("graphwire check: give at least one turn: --input JSON (then --resume JSON ...)", file=sys.stderr)
        return 2
    if importlib.util.find_spec("langgraph") is None or importlib.util.find_spec("langgraph.graph") is None:
        print("graphwire check: LangGraph is not installed in this environment; install it beside graphwire "
              "(pip install langgraph) to compare the runtimes", file=sys.stderr)  # fmt: skip
        return 2
    found = {runtime: _side(runtime, args.spec, args.turns) for runtime in RUNTIMES}
    for runtime, got in found.items():
        if "failed" in got:
            print(f"graphwire check: on {runtime}, {got['failed']}\n{got.get('traceback', '')}", file=sys.stderr)
            return 2
    diffs = differences(found["langgraph"], found["engine"])
    turns = len(args.turns)
    if not diffs:
        print(f"same: {turns} turn(s), a history of {len(found['engine']['history'])} version(s)")
        return 0
    print(f"differ: {len(diffs)} difference(s) over {turns} turn(s)")
    for line in diffs if args.verbose else diffs[:_SHOWN]:
        print(line)
    if len(diffs) > _SHOWN and not args.verbose:
        print(f"... and {len(diffs) - _SHOWN} more (-v prints all)")
    return 1


def _side(runtime: str, spec: str, turns: list[tuple[str, Any]]) -> dict[str, Any]:
    """What one runtime did, from a process of its own (a graph module is imported once per process)."""
    with tempfile.TemporaryDirectory(prefix="graphwire-check-") as tmp:
        out = Path(tmp) / "found.json"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), *filter(None, [os.environ.get("PYTHONPATH")])])}
        done = subprocess.run(
            [sys.executable, "-m", "server._check_side", runtime, spec, str(out), json.dumps(turns)],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if not out.exists():
            return {"failed": f"the check's process ended with status {done.returncode}", "traceback": done.stderr[-4000:]}
        found: dict[str, Any] = json.loads(out.read_text("utf-8"))
        return found


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Every path where ``a`` (LangGraph's) and ``b`` (the engine's) differ, as one line each."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in list(a) + [k for k in b if k not in a]:
            where = f"{path}.{key}" if path else str(key)
            if key not in b:
                out.append(f"{where}: langgraph {_short(a[key])} vs engine (missing)")
            elif key not in a:
                out.append(f"{where}: langgraph (missing) vs engine {_short(b[key])}")
            else:
                out += differences(a[key], b[key], where)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: langgraph {len(a)} item(s) {_short(a)} vs engine {len(b)} item(s) {_short(b)}"]
        return [line for i, (x, y) in enumerate(zip(a, b)) for line in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: langgraph {_short(a)} vs engine {_short(b)}"]


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 160 else text[:157] + "..."
