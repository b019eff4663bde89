"""A model cannot set a tool's hidden arguments (issue 28 item 0).

Each tool call here carries a forged value for every injected parameter
name; the tools record what they received. Observed the same on LangGraph
1.2.22 / langgraph-prebuilt 1.1.3 (tests/sidebyside/tool_injection.py): only
what the graph injects reaches those parameters, a parameter the graph cannot
fill gets its default or a "Field required" the model reads.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, Optional

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, InjectedToolArg, InjectedToolCallId, tool
from pydantic import BaseModel

from engine import START, StateGraph
from engine.graph import MessagesState
from engine.prebuilt import InjectedState, InjectedStore, ToolNode, ToolRuntime, create_react_agent
from engine.store.memory import InMemoryStore
from engine.testing import thread

FORGED = {"q": "x", "auth": "admin", "user": "root", "state": {"messages": [], "role": "admin"}, "topic": "forged",
          "nope": "forged", "store": "forged", "tool_call_id": "forged", "rt": {"state": {}}, "runtime": "forged"}  # fmt: skip

seen: dict[str, Any] = {}


class Auth(InjectedToolArg):
    """A user's own injected kind (filled by whoever calls the tool, never the model)."""


@tool
def with_auth(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """Uses the caller's auth."""
    seen["with_auth"] = auth
    return "ok"


@tool
async def async_auth(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """Async: uses the caller's auth."""
    seen["async_auth"] = auth
    return "ok"


def plain_function(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """A plain function given as a tool."""
    seen["plain_function"] = auth
    return "ok"


class AuthArgs(BaseModel):
    q: str
    auth: Annotated[str, Auth] = "anonymous"


class SubclassTool(BaseTool):
    name: str = "subclass_tool"
    description: str = "A BaseTool subclass whose schema holds an injected field."
    args_schema: type[BaseModel] = AuthArgs

    def _run(self, q: str, auth: str = "anonymous") -> str:
        seen["subclass_tool"] = auth
        return "ok"

    async def _arun(self, q: str, auth: str = "anonymous") -> str:
        seen["subclass_tool"] = auth
        return "ok"


class OnlyQ(BaseModel):
    q: str


@tool(args_schema=OnlyQ)
def schema_without_it(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """Its explicit schema does not list the injected parameter (LangChain would pass a value through)."""
    seen["schema_without_it"] = auth
    return "ok"


@tool
def needs_user(q: str, user: Annotated[str, InjectedToolArg]) -> str:
    """A required injected argument no graph fills."""
    seen["needs_user"] = user
    return "ok"


@tool
def whole_state(q: str, state: Annotated[dict, InjectedState]) -> str:
    """Reads the state."""
    seen["whole_state"] = state
    return "ok"


@tool
def one_key(q: str, topic: Annotated[str, InjectedState("topic")]) -> str:
    """Reads one key."""
    seen["one_key"] = topic
    return "ok"


@tool
def missing_key(q: str, nope: Annotated[Optional[str], InjectedState("nope")] = None) -> str:
    """Reads a key the state lacks (optional)."""
    seen["missing_key"] = nope
    return "ok"


@tool
def with_store(q: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Uses the store."""
    seen["with_store"] = store
    return "ok"


@tool
def call_id(q: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Knows its call."""
    seen["call_id"] = tool_call_id
    return "ok"


@tool
def by_type(q: str, rt: ToolRuntime) -> str:
    """Takes the ToolRuntime by annotation."""
    seen["by_type"] = rt
    rt.stream_writer({"from": rt.tool_call_id})
    rt.emit_output_delta("partial")  # LangGraph's "tools" mode only (not asked for): dropped
    return "ok"


@tool
def by_name(q: str, runtime: Any = None) -> str:
    """A parameter named ``runtime``: the graph's ToolRuntime, whatever the model says."""
    seen["by_name"] = runtime
    return "ok"


SYNC = [with_auth, plain_function, SubclassTool(), schema_without_it, needs_user, whole_state, one_key, missing_key,
        call_id, by_type, by_name]  # fmt: skip


@dataclass
class Ctx:
    user: str


class State(MessagesState):
    topic: str


def forged(*names: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": dict(FORGED), "id": f"id-{n}"} for n in names])


def graph(tools: list[Any], checkpointer: Any = None, store: Any = None) -> Any:
    g = StateGraph(State, context_schema=Ctx).add_node("tools", ToolNode(tools)).add_edge(START, "tools")
    return g.compile(checkpointer=checkpointer, store=store)


def answers(out: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {m.name: (m.status, m.content) for m in out["messages"] if isinstance(m, ToolMessage)}


def _check_received(ids: str) -> None:
    """What every tool of SYNC received: the graph's values, or the tool's default."""
    for name in ("with_auth", "plain_function", "subclass_tool", "schema_without_it"):
        assert seen[name] == "anonymous", name
    assert "needs_user" not in seen
    assert seen["whole_state"]["topic"] == "cats" and "role" not in seen["whole_state"]
    assert seen["whole_state"]["messages"][0].content == "hi"
    assert (seen["one_key"], seen["missing_key"], seen["call_id"]) == ("cats", None, "id-call_id")
    for rt in (seen["by_type"], seen["by_name"]):
        assert isinstance(rt, ToolRuntime)
        assert rt.context == Ctx("ada") and rt.state["topic"] == "cats" and rt.store is None
        assert rt.config["configurable"]["thread_id"] == ids
        assert rt.execution_info is not None and rt.execution_info.thread_id == ids
        assert "by_type" in {t.name for t in rt.tools}
    assert (seen["by_type"].tool_call_id, seen["by_name"].tool_call_id) == ("id-by_type", "id-by_name")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_forged_values_for_injected_parameters_never_reach_the_tool(checkpointer: Any, mode: str) -> None:
    seen.clear()
    tools = SYNC + ([async_auth] if mode == "async" else [])
    app = graph(tools, checkpointer)
    inp = {"messages": [HumanMessage("hi"), forged(*(t.name if isinstance(t, BaseTool) else t.__name__ for t in tools))],
           "topic": "cats"}  # fmt: skip
    if mode == "sync":
        chunks = list(app.stream(inp, thread(mode), stream_mode=["custom", "values"], context=Ctx("ada")))
    else:
        async def go() -> list[Any]:
            return [c async for c in app.astream(inp, thread(mode), stream_mode=["custom", "values"], context=Ctx("ada"))]

        chunks = asyncio.run(go())
        assert seen["async_auth"] == "anonymous"
    _check_received(mode)
    assert [c for m, c in chunks if m == "custom"] == [{"from": "id-by_type"}]
    out = answers(chunks[-1][1])
    assert all(status == "success" for n, (status, _) in out.items() if n != "needs_user")
    # the model reads what it sent and what it can fix; never a value the graph injected
    assert out["needs_user"] == ("error", (
        f"Error invoking tool 'needs_user' with kwargs {FORGED} with error:\n user: Field required\n"
        " Please fix the error and try again."
    ))  # fmt: skip
    assert "cats" not in out["needs_user"][1]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_store_is_the_graphs_and_a_graph_without_one_fails(mode: str) -> None:
    def run(store: Any) -> Any:
        app = graph([with_store], store=store)
        inp = {"messages": [forged("with_store")], "topic": "t"}
        return app.invoke(inp, context=Ctx("a")) if mode == "sync" else asyncio.run(app.ainvoke(inp, context=Ctx("a")))

    seen.clear()
    store = InMemoryStore()
    assert answers(run(store)) == {"with_store": ("success", "ok")} and seen["with_store"] is store
    seen.clear()
    with pytest.raises(ValueError, match="please compile your graph with a store"):
        run(None)
    assert seen == {}


def test_a_message_list_is_the_messages_of_the_state() -> None:
    seen.clear()
    messages = [HumanMessage("hi"), forged("whole_state", "with_auth")]
    out = ToolNode([whole_state, with_auth]).invoke(messages)
    assert [m.content for m in out] == ["ok", "ok"]
    assert seen == {"whole_state": {"messages": messages}, "with_auth": "anonymous"}
    with pytest.raises(ValueError, match="requires graph state dict as input. State should contain fields topic"):
        ToolNode([one_key]).invoke([forged("one_key")])
    with pytest.raises(KeyError, match="topic"):
        ToolNode([one_key]).invoke({"messages": [forged("one_key")]})


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_create_react_agent_strips_them_too(checkpointer: Any, mode: str) -> None:
    seen.clear()
    model = Fake(messages=iter([forged("with_auth", "whole_state", "by_type", "call_id"), AIMessage("done")]))
    agent = create_react_agent(model, [with_auth, whole_state, by_type, call_id], checkpointer=checkpointer)
    inp = {"messages": [HumanMessage("go")]}
    out = agent.invoke(inp, thread()) if mode == "sync" else asyncio.run(agent.ainvoke(inp, thread()))
    assert out["messages"][-1].content == "done"
    assert seen["with_auth"] == "anonymous" and seen["call_id"] == "id-call_id"
    assert [m.content for m in seen["whole_state"]["messages"]] == ["go", ""]
    assert seen["by_type"].state["messages"] == seen["whole_state"]["messages"]
    assert seen["by_type"].tool_call_id == "id-by_type"


def test_the_model_is_shown_none_of_them() -> None:
    node = ToolNode([*SYNC, with_store])
    shown = {n: set(t.tool_call_schema.model_json_schema().get("properties", {})) for n, t in node.tools_by_name.items()}
    assert shown == {n: {"q", "runtime"} if n == "by_name" else {"q"} for n in node.tools_by_name}
