"""The graphs of tests/http/test_run_options.py: one module's text, built with LangGraph's imports, and
the same text with the engine's imports (served as ``engine_<name>``), so a test runs on both runtimes.

``tagged``: its node ``tagged`` logs the run's tags (``config["tags"]``, sorted) and a fake chat model's
reply ("hi <label>", streamed when a caller streams), then the file ``ran-<label>`` in the gates directory
counts its runs. ``waiting``: its node waits for the gate its input names, then logs its label.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["GRAPHS", "graph_args"]

GRAPHS = '''
import asyncio
import operator
import os
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import START, StateGraph


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    label: str
    gate: str


def _gates():
    return Path(os.environ["GRAPHWIRE_TEST_GATES"])


def tagged_node(state, config):
    model = GenericFakeChatModel(messages=iter([AIMessage(content="hi " + state["label"], id="m-" + state["label"])]))
    reply = model.invoke("hi")
    counter = _gates() / ("ran-" + state["label"])
    counter.write_text(str(int(counter.read_text()) + 1 if counter.exists() else 1))
    return {"log": [sorted(config.get("tags") or []), reply.content]}


tagged = StateGraph(State)
tagged.add_node("tagged", tagged_node)
tagged.add_edge(START, "tagged")
tagged = tagged.compile()


async def wait_node(state):
    for _ in range(6000):
        if (_gates() / state["gate"]).exists():
            break
        await asyncio.sleep(0.01)
    return {"log": [state["label"]]}


waiting = StateGraph(State)
waiting.add_node("wait", wait_node)
waiting.add_edge(START, "wait")
waiting = waiting.compile()
'''
NAMES = ("tagged", "waiting")


def graph_args(directory: Path) -> tuple[dict[str, str], list[str]]:
    """The ``--graph`` specs (each graph on LangGraph under its name, on the engine as ``engine_<name>``) and
    the ``--runtime`` flags."""
    (directory / "lg_options.py").write_text(GRAPHS)
    (directory / "engine_options.py").write_text(GRAPHS.replace("from langgraph.", "from engine."))
    graphs = {}
    for name in NAMES:
        graphs[name] = f"{directory}/lg_options.py:{name}"
        graphs[f"engine_{name}"] = f"{directory}/engine_options.py:{name}"
    return graphs, [arg for name in NAMES for arg in ("--runtime", f"{name}=langgraph")]
