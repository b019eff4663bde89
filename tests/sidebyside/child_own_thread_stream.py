"""A node invokes another compiled graph with a config of its own (its own thread_id, or the
caller's): what the caller's stream shows of the child's run, by mode and with subgraphs or not."""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

from observe import record


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def chat_and_echo(state: MessagesState) -> dict:
    echo.invoke({"text": "done"})
    return {"messages": [GenericFakeChatModel(messages=iter(["one two"])).invoke("hi")]}


def one_node(node, saver=None):
    return StateGraph(MessagesState).add_node(node).add_edge(START, node.__name__).compile(checkpointer=saver)


def summary(part):
    ns = tuple(s.split(":")[0] for s in part["ns"])
    data = part["data"]
    if part["type"] == "messages":
        return part["type"], ns, data[0].content
    if part["type"] == "tools":
        return part["type"], ns, data["event"]
    if part["type"] == "values":
        return part["type"], ns, [m.content for m in data.get("messages", [])]
    if part["type"] == "updates":
        return part["type"], ns, sorted(data)
    return part["type"], ns, str(data)[:60]


for child_saver in (None, "saver"):
    for child_config in ({"configurable": {"thread_id": "child"}}, {"configurable": {"thread_id": "parent"}}, None):
        child = one_node(chat_and_echo, InMemorySaver() if child_saver else None)

        def node(state: MessagesState) -> dict:
            child.invoke({"messages": []}, child_config)
            return {}

        for subgraphs in (False, True):
            for modes in (["messages", "tools"], ["updates", "values"]):
                label = f"child saver={child_saver} config={child_config} subgraphs={subgraphs} modes={modes}"
                parent = one_node(node, InMemorySaver())  # a new thread "parent" each time
                try:
                    parts = parent.stream({"messages": []}, {"configurable": {"thread_id": "parent"}},
                                          stream_mode=modes, subgraphs=subgraphs, version="v2")
                    record(label, [summary(p) for p in parts])
                except Exception as exc:
                    record(label, {"error": type(exc).__name__, "msg": str(exc)[:120]})

# What each keeps: a child with a saver of its own, called on the caller's thread id, keeps its
# own thread there (the caller's history holds none of its versions); an interrupt inside it ends
# the child's call (its output shows it) and the caller's node goes on.
from langgraph.types import interrupt  # noqa: E402

from observe import history  # noqa: E402


def ask(state: MessagesState) -> dict:
    return {"messages": [("ai", f"answer: {interrupt('question?')}")]}


child_saver = InMemorySaver()
asking = one_node(ask, child_saver)
outs = []


def caller(state: MessagesState) -> dict:
    out = asking.invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "shared"}})
    outs.append(sorted(out))
    return {"messages": [("ai", "caller done")]}


top = one_node(caller, InMemorySaver())
config = {"configurable": {"thread_id": "shared"}}
record("caller result", [m.content for m in top.invoke({"messages": []}, config)["messages"]])
record("child output keys", outs)
record("caller history", history(top, config))
record("caller state with subgraphs", top.get_state(config, subgraphs=True).tasks)
record("child state", asking.get_state(config).next)

# A Command to the parent from a child running on its own: it has no parent graph.
from langgraph.types import Command  # noqa: E402


def to_parent(state: MessagesState) -> Command:
    return Command(graph=Command.PARENT, goto="elsewhere", update={"messages": [("ai", "from child")]})


orphan = one_node(to_parent)


def calls_orphan(state: MessagesState) -> dict:
    orphan.invoke({"messages": []}, {"configurable": {"thread_id": "o"}})
    return {}


def elsewhere(state: MessagesState) -> dict:
    return {"messages": [("ai", "elsewhere")]}


g = StateGraph(MessagesState).add_node(calls_orphan).add_node(elsewhere).add_edge(START, "calls_orphan").compile()
try:
    record("command to the parent from a run of its own", [m.content for m in g.invoke({"messages": []})["messages"]])
except Exception as exc:
    record("command to the parent from a run of its own", {"error": type(exc).__name__, "msg": str(exc)[:100]})

# A config naming only the root namespace (checkpoint_ns "") counts as a lineage of its own too,
# as LangGraph counts a given value; an empty one (checkpoint_map {}) does not.
for own in ({"configurable": {"checkpoint_ns": ""}}, {"configurable": {"checkpoint_map": {}}}):
    plain = one_node(chat_and_echo)

    def calls_plain(state: MessagesState) -> dict:
        plain.invoke({"messages": []}, own)
        return {}

    top = one_node(calls_plain)
    parts = top.stream({"messages": []}, stream_mode="updates", subgraphs=True, version="v2")
    record(f"child with {own}", [summary(p) for p in parts])
