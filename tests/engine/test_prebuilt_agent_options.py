"""create_react_agent's options (issue 29, prebuilt): a model function, response_format,
pre/post model hooks, context_schema, the checks on its arguments; and ValidationNode.

Each expectation was observed on LangGraph 1.2.22 / langgraph-prebuilt 1.1.3
(tests/sidebyside/react_agent_options.py runs the same program there and here).
"""

from __future__ import annotations

import asyncio
import importlib.util
import warnings
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from pydantic import BaseModel

from engine.prebuilt import ValidationNode, create_react_agent
from engine.prebuilt.chat_agent_executor import AgentState
from engine.testing import thread
from engine.warnings import LangGraphDeprecatedSinceV10

pytestmark = pytest.mark.filterwarnings("ignore::engine.warnings.LangGraphDeprecatedSinceV10")


class Echo(BaseChatModel):
    """Answers with its scripted tool calls (one list a turn), else with the texts it was sent joined by "-"."""

    calls: list[list[dict[str, Any]]] = []
    structured: Any = None
    turn: int = 0
    seen_structured: list[list[str]] = []

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        calls = self.calls[self.turn] if self.turn < len(self.calls) else []
        self.turn += 1
        text = "-".join(str(m.content) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text, tool_calls=calls))])

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self

    def with_structured_output(self, schema: Any, **kw: Any) -> Any:
        def answer(messages: list[BaseMessage]) -> Any:
            self.seen_structured.append([str(m.content) for m in messages])
            return self.structured

        return RunnableLambda(answer)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def texts(out: dict[str, Any]) -> list[tuple[str, str]]:
    return [(type(m).__name__, m.content) for m in out["messages"]]


def test_create_react_agent_is_deprecated_as_in_langgraph() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10, match="create_react_agent has been moved to `langchain.agents`"):
        create_react_agent(Echo(), [])


def test_a_model_function_picks_each_turns_model_from_the_state_and_the_context(checkpointer: Any) -> None:
    @dataclass
    class Ctx:
        shout: bool

    picked: list[tuple[int, bool]] = []

    def pick(state: dict[str, Any], runtime: Any) -> Any:
        picked.append((len(state["messages"]), runtime.context.shout))
        calls = [[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]] if len(state["messages"]) == 1 else []
        return Echo(calls=calls)

    agent = create_react_agent(pick, [add], context_schema=Ctx, checkpointer=checkpointer)
    out = agent.invoke({"messages": [HumanMessage("hi")]}, thread("dyn"), context=Ctx(shout=True))
    assert picked == [(1, True), (3, True)]
    assert texts(out)[-2:] == [("ToolMessage", "3"), ("AIMessage", "hi-hi-3")]


def test_an_async_model_function_is_awaited() -> None:
    async def pick(state: dict[str, Any], runtime: Any) -> Any:
        return Echo()

    out = asyncio.run(create_react_agent(pick, []).ainvoke({"messages": [HumanMessage("hello")]}))
    assert texts(out) == [("HumanMessage", "hello"), ("AIMessage", "hello")]


def test_response_format_adds_the_models_structured_answer() -> None:
    class Weather(BaseModel):
        temperature: float

    model = Echo(structured=Weather(temperature=21.5))
    out = create_react_agent(model, [add], response_format=("Answer in JSON", Weather)).invoke({"messages": [("user", "weather?")]})
    assert out["structured_response"] == Weather(temperature=21.5)
    assert model.seen_structured == [["Answer in JSON", "weather?", "weather?"]]  # its system prompt first
    assert list(create_react_agent(Echo(), [], response_format=Weather).get_graph().nodes) == [
        "__start__", "agent", "generate_structured_response", "__end__",
    ]  # fmt: skip


def test_a_pre_model_hook_feeds_the_model_without_changing_the_history(checkpointer: Any) -> None:
    def hook(state: dict[str, Any]) -> dict[str, Any]:
        return {"llm_input_messages": [SystemMessage("short"), *state["messages"][-1:]]}

    agent = create_react_agent(Echo(), [], pre_model_hook=hook, checkpointer=checkpointer)
    agent.invoke({"messages": [HumanMessage("one")]}, thread("pre"))
    out = agent.invoke({"messages": [HumanMessage("two")]}, thread("pre"))
    assert texts(out) == [("HumanMessage", "one"), ("AIMessage", "short-one"), ("HumanMessage", "two"), ("AIMessage", "short-two")]


def test_a_post_model_hook_runs_after_every_model_call_and_routes_on(checkpointer: Any) -> None:
    class Flagged(AgentState):
        checks: int

    def hook(state: dict[str, Any]) -> dict[str, Any]:
        return {"checks": state.get("checks", 0) + 1}

    model = Echo(calls=[[{"name": "add", "args": {"a": 2, "b": 2}, "id": "c1"}]])
    agent = create_react_agent(model, [add], post_model_hook=hook, state_schema=Flagged, checkpointer=checkpointer)
    out = agent.invoke({"messages": [HumanMessage("sum")], "checks": 0}, thread("post"))
    assert out["checks"] == 2 and texts(out)[1:3] == [("AIMessage", "sum"), ("ToolMessage", "4")]
    assert [s.next for s in agent.get_state_history(thread("post"))][:4] == [(), ("post_model_hook",), ("agent",), ("tools",)]


def test_create_react_agent_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match=r"create_react_agent\(\) got unexpected keyword arguments: \{'extra': 1\}"):
        create_react_agent(Echo(), [], extra=1)
    with pytest.raises(ValueError, match="Invalid version v3. Supported versions are 'v1' and 'v2'."):
        create_react_agent(Echo(), [], version="v3")  # type: ignore[arg-type]

    class NoSteps(BaseModel):
        messages: list[Any]

    with pytest.raises(ValueError, match=r"Missing required key\(s\) \{'remaining_steps'\} in state_schema"):
        create_react_agent(Echo(), [], state_schema=NoSteps)
    with pytest.raises(ValueError, match="Number of tools in the model.bind_tools"):
        create_react_agent(RunnableLambda(lambda x: x).bind(tools=[]), [add])  # bound: no tools, given: one
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = create_react_agent(Echo(), [], config_schema=dict)
    assert agent.context_schema is dict
    assert any("`config_schema` is deprecated" in str(w.message) for w in caught)


def test_a_model_by_name_is_made_by_langchains_init_chat_model() -> None:
    try:
        import langchain.chat_models  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"Please install langchain \(`pip install langchain`\)"):
            create_react_agent("openai:gpt-4o", [])
    else:  # langchain (a test dependency): its init_chat_model names the provider package it needs, as on LangGraph
        if importlib.util.find_spec("langchain_openai") is not None:  # pragma: no cover - not a test dependency
            pytest.skip("langchain-openai is installed: the model would be made (and need a key)")
        with pytest.raises(ImportError, match="Initializing ChatOpenAI requires the langchain-openai package"):
            create_react_agent("openai:gpt-4o", [])


def test_a_history_with_an_unanswered_tool_call_is_refused() -> None:
    history = [HumanMessage("hi"), AIMessage("", tool_calls=[{"name": "add", "args": {}, "id": "lost"}]), HumanMessage("?")]
    with pytest.raises(ValueError, match="Found AIMessages with tool_calls that do not have a corresponding ToolMessage") as e:
        create_react_agent(Echo(), [add]).invoke({"messages": history})
    assert "errors/INVALID_CHAT_HISTORY" in str(e.value)
    answered = [*history[:2], ToolMessage("0", tool_call_id="lost"), history[2]]
    assert texts(create_react_agent(Echo(), [add]).invoke({"messages": answered}))[-1] == ("AIMessage", "hi--0-?")


def test_validation_node_answers_each_call_with_its_checked_arguments_or_the_error() -> None:
    class Point(BaseModel):
        x: int
        y: int

    node = ValidationNode([Point])
    out = node.invoke({"messages": [AIMessage("", tool_calls=[
        {"name": "Point", "args": {"x": 1, "y": 2}, "id": "ok"},
        {"name": "Point", "args": {"x": "one", "y": 2}, "id": "bad"},
    ])]})  # fmt: skip
    good, bad = out["messages"]
    assert (good.content, good.tool_call_id, good.additional_kwargs) == ('{"x":1,"y":2}', "ok", {})
    assert bad.additional_kwargs == {"is_error": True} and bad.content.endswith("Respond after fixing all validation errors.")
    with pytest.raises(ValueError, match="Last message is not an AIMessage"):
        node.invoke([HumanMessage("hi")])
