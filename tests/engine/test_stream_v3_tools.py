"""``run.tool_calls`` (ToolCallTransformer) of a v3 run: the twin of tests/sidebyside/stream_events_v3_tools.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

from engine.graph import START, MessagesState, StateGraph
from engine.prebuilt import ToolCallTransformer, ToolNode, ToolRuntime

INPUT = {"messages": [HumanMessage("go")]}


@tool
def search(q: str, runtime: ToolRuntime) -> str:
    """Search, reporting progress."""
    for part in ("found ", "two"):
        runtime.emit_output_delta(part)
    return f"results for {q}"


@tool
def broken(x: int) -> str:
    """Fail."""
    raise ValueError("no luck")


def _agent(state: MessagesState) -> dict[str, Any]:
    calls = [{"name": "search", "args": {"q": "cats"}, "id": "s1"}, {"name": "broken", "args": {"x": 1}, "id": "b1"}]
    return {"messages": [AIMessage("", tool_calls=calls)]}


def _build(**kw: Any) -> Any:
    g = StateGraph(MessagesState).add_node("agent", _agent).add_node("tools", ToolNode([search, broken], handle_tool_errors=True))
    return g.add_edge(START, "agent").add_edge("agent", "tools").compile(**kw)


def test_each_call_s_deltas_and_end() -> None:
    run = _build(transformers=[ToolCallTransformer]).stream_events(INPUT, version="v3")
    got = sorted((c.tool_call_id, c.tool_name, c.input, list(c), c.output, c.error, c.completed) for c in run.tool_calls)
    assert got == [
        ("b1", "broken", {"x": 1}, [], None, "no luck", True),
        ("s1", "search", {"q": "cats"}, ["found ", "two"], "results for cats", None, True),
    ]
    run = _build(transformers=[ToolCallTransformer]).stream_events(INPUT, version="v3")
    kinds = sorted((e["params"]["data"]["tool_call_id"], e["params"]["data"]["event"]) for e in run if e["method"] == "tools")
    assert kinds == [
        ("b1", "tool-error"), ("b1", "tool-started"),
        ("s1", "tool-finished"), ("s1", "tool-output-delta"), ("s1", "tool-output-delta"), ("s1", "tool-started"),
    ]  # fmt: skip
    assert "tool_calls" not in _build().stream_events(INPUT, version="v3").extensions


def test_async_and_in_a_subgraph() -> None:
    async def main() -> list[Any]:
        run = await _build(transformers=[ToolCallTransformer]).astream_events(INPUT, version="v3")
        return sorted([(c.tool_call_id, [d async for d in c], c.output, c.error) async for c in run.tool_calls])

    assert asyncio.run(main()) == [("b1", [], None, "no luck"), ("s1", ["found ", "two"], "results for cats", None)]
    outer = StateGraph(MessagesState).add_node("inner", _build(transformers=[ToolCallTransformer])).add_edge(START, "inner")
    run = outer.compile(transformers=[ToolCallTransformer]).stream_events(INPUT, version="v3")
    inner = [sorted((c.tool_call_id, list(c), c.output) for c in h.tool_calls) for h in run.subgraphs]
    assert inner == [[("b1", [], None), ("s1", ["found ", "two"], "results for cats")]]
    assert list(run.tool_calls) == []  # the root's: the subgraph's calls are its handle's


def test_create_agent_s_v3_stream() -> None:
    pytest.importorskip("langchain.agents")
    program = Path(__file__).with_name("_lc_agent_v3_program.py")
    swapped = "import engine.swap, runpy, sys; engine.swap.install(); runpy.run_path(sys.argv[1], run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", swapped, str(program)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["extensions"] == ["lifecycle", "messages", "subagents", "subgraphs", "tool_calls", "values"]
    assert seen["log"] == [
        ["values", ["human"]],
        ["message", "model", "", ["add"]],
        ["values", ["human", "ai"]],
        ["tool", "c1", "add", {"a": 1, "b": 2}, [], "3"],  # its deltas read (none), it has finished
        ["values", ["human", "ai", "tool"]],
        ["message", "model", "the sum is 3", []],
        ["values", ["human", "ai", "tool", "ai"]],
    ]
    assert seen["async"] == [[["model", ""], ["model", "the sum is 3"]], ["human", "ai", "tool", "ai"]]
