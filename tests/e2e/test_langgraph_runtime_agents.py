"""LangChain 1.x's ``create_agent`` with ``HumanInTheLoopMiddleware``, and langgraph-supervisor's supervisor of
two agents, run by LangGraph itself behind graphwire (issue 31: ``--runtime NAME=langgraph``): a tool turn,
the interrupt with the middleware's request, the resume with a decision and the history over gRPC, from the
Python client, are what the same program gives run in process on LangGraph 1.2.22 (ids and times aside);
likewise the supervisor's handoffs and its history."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="the test extra installs langchain>=1")
pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

AGENT = '''
"""An agent that mails, asking before it sends."""
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}: {body}"


@tool
def lookup(name: str) -> str:
    """Look a name up."""
    return f"{name} is at home"


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


replies = [
    AIMessage("", id="ai-1", tool_calls=[{"name": "lookup", "args": {"name": "ann"}, "id": "c-1"}]),
    AIMessage("", id="ai-2", tool_calls=[{"name": "send_email", "args": {"to": "ann", "body": "hi"}, "id": "c-2"}]),
    AIMessage("done", id="ai-3"),
]
graph = create_agent(
    Fake(messages=iter(replies)), [send_email, lookup],
    middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": True, "lookup": False})],
)
'''

SUPERVISOR = '''
"""A supervisor handing a sum to its math agent."""
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph_supervisor import create_supervisor


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(mid, name, args, cid):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": cid}])


math = create_agent(
    Fake(messages=iter([call("m1", "add", {"a": 2, "b": 3}, "a1"), AIMessage("2 + 3 = 5", id="m2")])), [add],
    name="math_expert",
)
boss = Fake(messages=iter([call("b1", "transfer_to_math_expert", {}, "h1"), AIMessage("all done: 5", id="b2")]))
graph = create_supervisor([math], model=boss, prompt="route")
'''

TURN = {"messages": [{"role": "user", "content": "mail ann", "id": "h-1"}]}
ANSWER = {"decisions": [{"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "ann", "body": "hello"}}}]}


def _said(messages: list[Any]) -> list[tuple[Any, ...]]:
    """What a conversation says: each message's type, text and tool calls (ids aside)."""
    out = []
    for m in messages:
        m = m if isinstance(m, dict) else m.model_dump()
        out.append((m["type"], m.get("content"), [(c["name"], c["args"]) for c in m.get("tool_calls") or []]))
    return out


def _supervised(directory: Path) -> dict[str, Any]:
    code = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        sys.path.insert(0, sys.argv[2])
        from langgraph.checkpoint.memory import InMemorySaver
        from supervisor import graph
        from tests.e2e.test_langgraph_runtime_agents import _said
        app = graph.compile(checkpointer=InMemorySaver())
        cfg = {"configurable": {"thread_id": "t"}}
        out = app.invoke({"messages": [{"role": "user", "content": "2 + 3?", "id": "h-1"}]}, cfg)
        history = [(s.metadata["source"], s.metadata["step"], list(s.next)) for s in app.get_state_history(cfg)]
        print(json.dumps({"said": _said(out["messages"]), "history": history}))
        """
    )
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", code, str(directory), root], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _in_process(directory: Path) -> dict[str, Any]:
    code = textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, sys.argv[1])
        sys.path.insert(0, sys.argv[2])
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.types import Command
        from agent import graph
        from tests.e2e.test_langgraph_runtime_agents import _said
        graph.checkpointer = InMemorySaver()
        cfg = {{"configurable": {{"thread_id": "t"}}}}
        first = graph.invoke({TURN!r}, cfg)
        second = graph.invoke(Command(resume={ANSWER!r}), cfg)
        history = [(s.metadata["source"], s.metadata["step"], list(s.next)) for s in graph.get_state_history(cfg)]
        print(json.dumps({{"asked": [i.value for i in first["__interrupt__"]], "first": _said(first["messages"]),
                          "second": _said(second["messages"]), "history": history}}))
        """
    )
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", code, str(directory), root], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_create_agent_with_human_in_the_loop_on_langgraph_over_grpc(start_server: Any, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    expected = _in_process(tmp_path)
    srv = start_server(graphs={"mailer": f"{tmp_path}/agent.py:graph"}, args=["--runtime", "langgraph"])
    with srv.client() as client:
        first = client.invoke("mailer", "t", TURN)
        assert first.reason == "INTERRUPT"
        assert [i.value for i in first.interrupts] == expected["asked"]
        assert json.loads(json.dumps(_said(first.values["messages"]))) == expected["first"]
        second = client.resume("mailer", "t", ANSWER)
        assert second.reason == "END"
        assert json.loads(json.dumps(_said(second.values["messages"]))) == expected["second"]
        history = [[s.metadata["source"], s.metadata["step"], list(s.next)] for s in client.history("mailer", "t")]
        assert history == expected["history"]


def test_a_supervisor_of_an_agent_on_langgraph_over_grpc(start_server: Any, tmp_path: Path) -> None:
    pytest.importorskip("langgraph_supervisor", reason="the test extra installs langgraph-supervisor")
    (tmp_path / "supervisor.py").write_text(SUPERVISOR)
    expected = _supervised(tmp_path)
    srv = start_server(graphs={"boss": f"{tmp_path}/supervisor.py:graph"}, args=["--runtime", "langgraph"])
    with srv.client() as client:
        done = client.invoke("boss", "t", {"messages": [{"role": "user", "content": "2 + 3?", "id": "h-1"}]})
        assert done.reason == "END"
        said = json.loads(json.dumps(_said(done.values["messages"])))
        # the handoff messages' texts name the agents; their ids are random on both sides
        assert said == expected["said"] and said[-1][1] == "all done: 5"
        history = [[s.metadata["source"], s.metadata["step"], list(s.next)] for s in client.history("boss", "t")]
        assert history == expected["history"]
