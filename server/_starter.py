"""``graphwire init``: a starter graph and the config that serves it.

Two files in a directory: ``graphwire.toml`` naming ``./agent.py:graph``, and
``agent.py``, a chat graph with one node, written the way a LangGraph graph
is (``StateGraph``, ``add_messages``) with ``engine`` imports. ``graphwire
serve`` run in that directory serves it at once; nothing else is needed (the
config file's directory is where graph files are found, see
:mod:`server._specs`). Existing files are never overwritten.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_starter"]

CONFIG = '''\
# graphwire serve reads this file from the directory it runs in (or --config FILE).
# Every key can also be set as an environment variable: GRAPHWIRE_<KEY>.
address = "127.0.0.1:50051"      # port 0 picks a free port
checkpointer = "graphwire.db"    # SQLite here; "postgresql://USER@HOST/DB" for production

[graphs]
# NAME = "./FILE.py:ATTRIBUTE" (relative to this file) or "package.module:attribute"
{name} = "./{file}:graph"
'''

GRAPH = '''\
"""{name}: a starter chat graph. Replace `reply` with your model call.

Written as a LangGraph graph is; graphwire's engine runs it unchanged
(`from langgraph.graph import ...` becomes `from engine.graph import ...`).
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from engine.graph import END, START, StateGraph, add_messages


class State(TypedDict):
    messages: Annotated[list, add_messages]


def reply(state: State) -> dict[str, Any]:
    last = state["messages"][-1]
    text = last.get("content", "") if isinstance(last, dict) else getattr(last, "content", "")
    return {{"messages": [{{"role": "assistant", "content": f"You said: {{text}}"}}]}}


builder = StateGraph(State)
builder.add_node("reply", reply)
builder.add_edge(START, "reply")
builder.add_edge("reply", END)

# graphwire compiles the builder with the server's checkpointer.
graph = builder
'''


def write_starter(directory: Path, *, name: str = "agent") -> list[Path]:
    """Write ``graphwire.toml`` and ``<name>.py`` into ``directory``; the paths written.

    Raises:
        ValueError: ``name`` is not a Python name, a file to write exists, or
            the directory cannot be made or written.
    """
    if not name.isidentifier():
        raise ValueError(f"graph name {name!r}: use a Python name (letters, digits, _), e.g. agent")
    config, graph = directory / "graphwire.toml", directory / f"{name}.py"
    existing = [str(p) for p in (config, graph) if p.exists()]
    if existing:
        verb = "already exists" if len(existing) == 1 else "already exist"
        raise ValueError(
            f"{' and '.join(existing)} {verb}; graphwire init never overwrites a file: name another directory "
            "(graphwire init DIR), or move those files away"
        )
    try:
        directory.mkdir(parents=True, exist_ok=True)
        config.write_text(CONFIG.format(name=name, file=graph.name), "utf-8")
        graph.write_text(GRAPH.format(name=name), "utf-8")
    except OSError as e:
        raise ValueError(f"cannot write {e.filename or directory}: {e.strerror or e}") from None
    return [config, graph]
