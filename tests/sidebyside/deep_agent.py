"""deepagents' create_deep_agent with a fake model: todos written, a file written then read, a subagent
task, over two turns on one thread with a checkpointer, sync and async; values (files, todos, messages)
and the histories. Its default StateBackend keeps the files in state through LangGraph's task-local
reader and writer (__pregel_read, __pregel_send). Needs `pip install deepagents` (0.7.32 here)."""

import asyncio

from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from observe import record


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(mid, name, args):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-0"}])


def replies():
    return iter([
        call("m1", "write_todos", {"todos": [{"content": "write notes", "status": "in_progress"}]}),
        call("m2", "write_file", {"file_path": "/notes.md", "content": "hello\nworld\n"}),
        call("m3", "read_file", {"file_path": "/notes.md"}),
        AIMessage("done first", id="m4"),
        call("m5", "task", {"description": "summarise the notes", "subagent_type": "general-purpose"}),
        AIMessage("sub says hi", id="s1"),  # the subagent's model answers (the same fake model)
        AIMessage("done second", id="m6"),
    ])


def run(sync):
    agent = create_deep_agent(model=Fake(messages=replies()), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 50}
    for text in ("take notes", "summarise"):
        inp = {"messages": [{"role": "user", "content": text}]}
        out = agent.invoke(inp, config) if sync else asyncio.run(agent.ainvoke(inp, config))
        files = out.get("files") or {}
        record(f"{'sync' if sync else 'async'} {text}", {
            "messages": [(type(m).__name__, m.content if isinstance(m.content, str) else str(m.content)[:60]) for m in out["messages"]],
            "todos": out.get("todos"),
            "files": sorted(files),
        })
    snaps = []
    for snap in agent.get_state_history(config):  # files' times left out: each run writes its own
        v = snap.values
        snaps.append({
            "next": list(snap.next), "step": snap.metadata.get("step"), "source": snap.metadata.get("source"),
            "messages": [(type(m).__name__, str(m.content)[:40]) for m in v.get("messages", [])],
            "todos": v.get("todos"),
            "files": {k: f.get("content") for k, f in (v.get("files") or {}).items()},
            "tasks": [t.name for t in snap.tasks],
        })
    record(f"{'sync' if sync else 'async'} history", snaps)


run(True)
run(False)
