"""create_agent with more of LangChain 1.x's middleware: hooks written as decorators (before_model with a
jump to the end, after_model, wrap_model_call, wrap_tool_call, dynamic_prompt), ModelCallLimitMiddleware
(thread and run limits: a jump to the end), ToolCallLimitMiddleware, TodoListMiddleware's state key, a
middleware with its own state schema, and a context schema read through the runtime; their histories."""

from dataclasses import dataclass

from langchain.agents import AgentState, create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    ModelCallLimitMiddleware,
    TodoListMiddleware,
    ToolCallLimitMiddleware,
    after_model,
    before_model,
    dynamic_prompt,
    wrap_model_call,
    wrap_tool_call,
)
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from typing_extensions import NotRequired

from observe import call, history, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.content) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def calls(mid, *pairs):
    return AIMessage("", id=mid, tool_calls=[{"name": n, "args": a, "id": f"{mid}-{i}"} for i, (n, a) in enumerate(pairs)])


def model(*replies):
    return Fake(messages=iter(replies), seen=[])


@dataclass
class Ctx:
    user: str


log = []


@before_model(can_jump_to=["end"])
def stop_on_bye(state, runtime):
    log.append(("before", len(state["messages"]), runtime.context.user))
    if state["messages"][-1].content == "bye":
        return {"messages": [AIMessage("goodbye", id="bye")], "jump_to": "end"}
    return None


@after_model
def count(state, runtime):
    log.append(("after", state["messages"][-1].content))
    return None


@wrap_model_call
def tag_model(request, handler):
    log.append(("wrap model", len(request.messages), [t.name for t in request.tools]))
    return handler(request)


@wrap_tool_call
def tag_tool(request, handler):
    log.append(("wrap tool", request.tool_call["name"], request.tool_call["args"]))
    return handler(request)


@dynamic_prompt
def prompt(request):
    return f"you help {request.runtime.context.user}"


class Counted(AgentState):
    turns: NotRequired[int]


class CountTurns(AgentMiddleware):
    state_schema = Counted

    def before_agent(self, state, runtime):
        return {"turns": state.get("turns", 0) + 1}


m = model(calls("a1", ("add", {"a": 1, "b": 2})), AIMessage("3", id="a2"), AIMessage("again", id="a3"))
agent = create_agent(
    m, [add], middleware=[stop_on_bye, count, tag_model, tag_tool, prompt, CountTurns()], context_schema=Ctx, checkpointer=InMemorySaver()
)
config = {"configurable": {"thread_id": "hooks"}}
record("graph", sorted((e.source, e.target, e.conditional) for e in agent.get_graph().edges))
record("turn", agent.invoke({"messages": [{"role": "user", "content": "add", "id": "h1"}]}, config, context=Ctx("ann")))
record("bye", agent.invoke({"messages": [{"role": "user", "content": "bye", "id": "h2"}]}, config, context=Ctx("ann")))
record("log", log)
record("model saw", m.seen)
history(agent, config, "hooks history")

m = model(*[calls(f"c{i}", ("add", {"a": i, "b": i})) for i in range(6)])
agent = create_agent(m, [add], middleware=[ModelCallLimitMiddleware(run_limit=2)], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "model limit"}}
record("model limit", agent.invoke({"messages": [("user", "loop")]}, config))
history(agent, config, "model limit history")
agent = create_agent(model(AIMessage("x", id="x")), [], middleware=[ModelCallLimitMiddleware(run_limit=0, exit_behavior="error")])
call("model limit error", agent.invoke, {"messages": [("user", "hi")]})

m = model(calls("t1", ("add", {"a": 1, "b": 1}), ("add", {"a": 2, "b": 2})), AIMessage("done", id="t2"))
agent = create_agent(m, [add], middleware=[ToolCallLimitMiddleware(tool_name="add", run_limit=1)], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "tool limit"}}
record("tool limit", agent.invoke({"messages": [("user", "two adds")]}, config))
history(agent, config, "tool limit history")

m = model(calls("w1", ("write_todos", {"todos": [{"content": "plan", "status": "in_progress"}]})), AIMessage("planned", id="w2"))
agent = create_agent(m, [], middleware=[TodoListMiddleware()])
record("todos", agent.invoke({"messages": [("user", "plan it")]}))
