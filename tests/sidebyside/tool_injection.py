"""A model's values for a tool's injected parameters never reach the tool (issue 28 item 0).

Every tool call below carries a value for every injected parameter name; each
tool records what it received. Injected kinds: a subclass of InjectedToolArg
(with a default) and InjectedToolArg itself (required), InjectedState (whole,
one key, an optional missing key), InjectedStore (with and without a store),
ToolRuntime (by annotation, and a parameter named ``runtime``),
InjectedToolCallId; tools as @tool (sync, async), plain functions, BaseTool
subclasses and an explicit args_schema; run by ToolNode (invoke, ainvoke, a
message list, a Pydantic state) and by create_react_agent.
"""

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, Optional

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import BaseTool, InjectedToolArg, InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, InjectedStore, ToolNode, ToolRuntime, create_react_agent
from langgraph.store.memory import InMemoryStore
from langgraph.types import Send
from pydantic import BaseModel

from observe import call, record

seen: dict[str, Any] = {}


class Auth(InjectedToolArg):
    """A user's own injected kind: the caller fills it, never the model."""


@tool
def with_auth(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """Uses the caller's auth."""
    seen["with_auth"] = auth
    return "ok"


@tool
def needs_user(q: str, user: Annotated[str, InjectedToolArg]) -> str:
    """A required injected argument the graph cannot fill."""
    seen["needs_user"] = user
    return "ok"


@tool
def whole_state(q: str, state: Annotated[dict, InjectedState]) -> str:
    """Reads the state."""
    seen["whole_state"] = sorted(state) if isinstance(state, dict) else type(state).__name__
    return "ok"


@tool
def one_key(q: str, topic: Annotated[str, InjectedState("topic")]) -> str:
    """Reads one key."""
    seen["one_key"] = topic
    return "ok"


@tool
def missing_key(q: str, nope: Annotated[Optional[str], InjectedState("nope")] = None) -> str:
    """Reads a key the state lacks."""
    seen["missing_key"] = nope
    return "ok"


@tool
def with_store(q: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Uses the store."""
    seen["with_store"] = type(store).__name__
    return "ok"


@tool
def call_id(q: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Knows its call."""
    seen["call_id"] = tool_call_id
    return "ok"


def _runtime(rt: Any) -> dict[str, Any]:
    rt.stream_writer({"from": rt.tool_call_id})
    rt.emit_output_delta("partial")  # the "tools" mode only (not asked for here): dropped
    return {
        "class": type(rt).__name__, "call": rt.tool_call_id, "state": sorted(rt.state),
        "context": rt.context, "store": type(rt.store).__name__,
        "thread": (rt.config.get("configurable") or {}).get("thread_id"), "tools": sorted(t.name for t in rt.tools),
        "thread in info": rt.execution_info.thread_id if rt.execution_info else None,
    }  # fmt: skip


@tool
def by_type(q: str, rt: ToolRuntime) -> str:
    """Takes the runtime by its annotation."""
    seen["by_type"] = _runtime(rt)
    return "ok"


@tool
def by_name(q: str, runtime: Any = None) -> str:
    """A parameter named runtime, no marker: the model sees it, the graph overrides it."""
    seen["by_name"] = type(runtime).__name__
    return "ok"


@tool
async def async_auth(q: str, auth: Annotated[str, Auth] = "anonymous", state: Annotated[dict, InjectedState] = None) -> str:
    """Async, two injected kinds."""
    seen["async_auth"] = (auth, sorted(state))
    return "ok"


def plain_function(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """A plain function as a tool."""
    seen["plain_function"] = auth
    return "ok"


class AuthArgs(BaseModel):
    q: str
    auth: Annotated[str, Auth] = "anonymous"


class SubclassTool(BaseTool):
    name: str = "subclass_tool"
    description: str = "A BaseTool subclass whose schema has an injected field."
    args_schema: type[BaseModel] = AuthArgs

    def _run(self, q: str, auth: str = "anonymous") -> str:
        seen["subclass_tool"] = auth
        return "ok"

    async def _arun(self, q: str, auth: str = "anonymous") -> str:
        # the same key as _run: which of the two a sync call runs is a kept difference (README)
        seen["subclass_tool"] = auth
        return "ok"


class OnlyQ(BaseModel):
    q: str


@tool(args_schema=OnlyQ)
def schema_without_it(q: str, auth: Annotated[str, Auth] = "anonymous") -> str:
    """Its explicit schema does not list the injected parameter."""
    seen["schema_without_it"] = auth
    return "ok"


SYNC = [with_auth, needs_user, whole_state, one_key, missing_key, call_id, by_type, by_name, plain_function,
        SubclassTool(), schema_without_it]  # fmt: skip
EVIL = {"q": "x", "auth": "admin", "user": "root", "state": {"messages": []}, "topic": "forged", "nope": "forged",
        "store": "forged", "tool_call_id": "forged", "rt": {"state": {}}, "runtime": "forged"}  # fmt: skip
node = ToolNode([*SYNC, async_auth, with_store])
NAMES = [*node.tools_by_name]


@dataclass
class Ctx:
    user: str


class State(MessagesState):
    topic: str


def forged(*names: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": dict(EVIL), "id": f"id-{n}"} for n in names])


def graph(store: Any = None, state: Any = State) -> Any:
    g = StateGraph(state, context_schema=Ctx)
    g.add_node("tools", node)
    g.add_edge(START, "tools")
    return g.compile(checkpointer=InMemorySaver(), store=store)


def results(out: Any) -> list[Any]:
    msgs = out["messages"] if isinstance(out, dict) else out.messages
    return [(m.name, m.status, m.content) for m in msgs if m.type == "tool"]


def run(key: str, names: list[str], *, is_async: bool = False, store: Any = None) -> None:
    """One forged turn; what the tools answered, what they received, and their custom events."""
    seen.clear()
    app = graph(store)
    inp = {"messages": [HumanMessage("hi"), forged(*names)], "topic": "cats"}
    cfg = {"configurable": {"thread_id": key}, "recursion_limit": 5}
    if is_async:
        async def go() -> list[Any]:
            return [(m, c) async for m, c in app.astream(inp, cfg, stream_mode=["custom", "values"], context=Ctx("ada"))]
    else:
        def go() -> list[Any]:
            return list(app.stream(inp, cfg, stream_mode=["custom", "values"], context=Ctx("ada")))

    def turn() -> Any:
        chunks = asyncio.run(go()) if is_async else go()
        return [results(chunks[-1][1]), [c for m, c in chunks if m == "custom"]]

    call(key, turn)
    record(key + " seen", dict(sorted(seen.items())))


sync_names = [n for n in NAMES if n not in ("async_auth", "with_store")]
run("sync", sync_names)
run("async", [n for n in NAMES if n != "with_store"], is_async=True)
run("store", ["with_store"], store=InMemoryStore())
run("async store", ["with_store"], is_async=True, store=InMemoryStore())
run("no store", ["with_store"])
run("async no store", ["with_store"], is_async=True)


def sent_list(key: str, *names: str) -> None:
    """A message list sent to the ToolNode (its list input): the whole state is ``{"messages": list}``."""
    seen.clear()
    g = StateGraph(State, context_schema=Ctx)
    g.add_node("tools", node)
    g.add_conditional_edges(START, lambda s: Send("tools", [HumanMessage("hi"), forged(*names)]), ["tools"])
    try:
        g.compile().invoke({"messages": [], "topic": "cats"}, context=Ctx("cy"))
    except Exception as e:  # the node's list output is no state update: only the class compares (its
        record(key, type(e).__name__)  # bases differ, README "Where it differs")
    record(key + " seen", dict(sorted(seen.items())))


sent_list("list whole state", "whole_state", "with_auth")
sent_list("list one key", "one_key")


class PState(BaseModel):
    messages: Annotated[list, lambda a, b: a + b] = []
    topic: str = ""


def pydantic_state() -> list[Any]:
    seen.clear()
    out = graph(state=PState).invoke(
        {"messages": [HumanMessage("hi"), forged("one_key", "missing_key", "with_auth")], "topic": "dogs"},
        {"configurable": {"thread_id": "p"}}, context=Ctx("bo"),
    )  # fmt: skip
    return [results(out), dict(sorted(seen.items()))]


call("pydantic state", pydantic_state)


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def agent(is_async: bool) -> list[Any]:
    seen.clear()
    model = Fake(messages=iter([forged("with_auth", "whole_state", "by_type", "call_id", "needs_user"), AIMessage("done")]))
    app = create_react_agent(model, [with_auth, whole_state, by_type, call_id, needs_user], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "agent"}}
    inp = {"messages": [HumanMessage("go")]}
    out = asyncio.run(app.ainvoke(inp, cfg)) if is_async else app.invoke(inp, cfg)
    return [results(out), dict(sorted(seen.items()))]


call("react agent", agent, False)
call("react agent async", agent, True)
record("schemas", {n: sorted(t.tool_call_schema.model_json_schema().get("properties", {})) for n, t in node.tools_by_name.items()})
