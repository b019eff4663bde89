"""A LangChain agent's structured response is stored and read back with a saver told nothing
(tests/sidebyside/agent_structured_default_saver.py is the program beside LangGraph).

``create_agent(response_format=Model, checkpointer=saver)``: the agent's state
names the response by a type variable, so no schema names its class; the
engine allows the classes the agent's response format names at compile, as it
allows a state schema's (engine.graph._allowlist.agent_response_schemas). A
program started again makes the agent again, and reads the thread back.
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

PROGRAM = Path(__file__).with_name("_lc_structured_program.py")
SWAPPED = "import engine.swap, runpy, sys; engine.swap.install(); sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"


def _run(path: Path, phase: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", SWAPPED, str(PROGRAM), str(path), phase], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_structured_response_is_stored_and_read_back_by_a_program_started_again(tmp_path: Path) -> None:
    db = tmp_path / "agent.sqlite"
    want = {"weather": ["Weather", {"city": "Oslo", "degrees": 3}], "booking": ["Booking", {"city": "Rome", "nights": 2}]}
    assert _run(db, "write") == want
    assert _run(db, "read") == want
