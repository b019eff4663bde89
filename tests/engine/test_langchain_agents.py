"""LangChain 1.x's create_agent on the engine (issue 29 item 2): a tool turn, and HumanInTheLoopMiddleware's
interrupt then a resume with an edit, on the in-memory and SQLite savers.

LangChain imports ``langgraph``, so the program (tests/engine/_lc_agents_program.py)
runs in a fresh interpreter with the import swap installed (the swap is
process-wide and refuses a process where real LangGraph was imported). Each
expectation was observed on LangGraph 1.2.22 with langchain 1.x: the
side-by-side programs tests/sidebyside/agent_tool.py and agent_hitl.py run
the same agents there and here.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("langchain") is None or importlib.util.find_spec("langchain.agents") is None,
    reason="langchain 1.x is not installed (the test extra has it: pip install -e '.[test]')",
)

PROGRAM = Path(__file__).with_name("_lc_agents_program.py")
SWAPPED = "import engine.swap, runpy, sys; engine.swap.install(); sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def seen(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the program saw on one saver (run once per saver for the module's tests)."""
    where = "memory" if request.param == "memory" else str(tmp_path_factory.mktemp("agent") / "agent.sqlite")
    done = subprocess.run([sys.executable, "-c", SWAPPED, str(PROGRAM), where], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


REQUEST = {
    "action_requests": [
        {"name": "send_email", "args": {"to": "ann", "body": "hi"}, "description": "Tool execution requires approval\n\nTool: send_email\nArgs: {'to': 'ann', 'body': 'hi'}"}
    ],
    "review_configs": [{"action_name": "send_email", "allowed_decisions": ["approve", "edit", "reject", "respond"]}],
}
EDITED = (
    "Note: a human reviewer replaced this tool call before it ran. The call recorded in your message is the one you "
    "produced, not the one that executed. This was intentional and authorized. Do not re-issue your original call. "
    'Executed instead: send_email with arguments {"to": "ann", "body": "hello"}.\n\nTool response:\nsent to ann: hello'
)


def test_a_tool_turn(seen: dict[str, Any]) -> None:
    assert seen["turn"] == [["human", "2+3?", []], ["ai", "", [["add", {"a": 2, "b": 3}]]], ["tool", "5", []], ["ai", "5", []]]
    assert seen["turn history"] == [
        ["loop", 3, []], ["loop", 2, ["model"]], ["loop", 1, ["tools"]], ["loop", 0, ["model"]], ["input", -1, ["__start__"]],
    ]  # fmt: skip


def test_human_in_the_loop_interrupt_then_an_edit(seen: dict[str, Any]) -> None:
    assert seen["asked"] == REQUEST
    assert seen["waiting next"] == ["HumanInTheLoopMiddleware.after_model"]
    assert seen["waiting interrupts"] == [REQUEST]
    assert seen["resumed"] == [
        ["human", "mail ann", []],
        ["ai", "", [["send_email", {"to": "ann", "body": "hi"}]]],  # the model's call as it made it
        ["tool", EDITED, []],  # the reviewer's call ran
        ["ai", "sent", []],
    ]
    assert seen["resumed next"] == []
    assert seen["hitl history"] == [
        ["loop", 5, []], ["loop", 4, ["HumanInTheLoopMiddleware.after_model"]], ["loop", 3, ["model"]],
        ["loop", 2, ["tools"]], ["loop", 1, ["HumanInTheLoopMiddleware.after_model"]], ["loop", 0, ["model"]],
        ["input", -1, ["__start__"]],
    ]  # fmt: skip
