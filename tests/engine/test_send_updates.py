"""update_state without as_node after a step of Send tasks, as LangGraph 1.2 (observed with
tests/sidebyside/map_reduce.py): a Send's task marks nothing seen, so "the node that ran
last" is the last pull task (the one whose router sent), and the update goes out through its
edges again."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph
from engine.types import Send


class Overall(TypedDict, total=False):
    topic: str
    subjects: list
    jokes: Annotated[list, operator.add]
    best: str


def build(checkpointer):
    g = StateGraph(Overall)
    g.add_node("topics", lambda s: {"subjects": [f"{s['topic']}-{i}" for i in range(3)]})
    g.add_node("joke", lambda s: {"jokes": [f"joke about {s['subject']}"]})
    g.add_node("best", lambda s: {"best": sorted(s["jokes"])[-1]})
    g.add_edge(START, "topics")
    g.add_conditional_edges("topics", lambda s: [Send("joke", {"subject": x}) for x in s["subjects"]], ["joke"])
    g.add_edge("joke", "best")
    g.add_edge("best", END)
    return g.compile(checkpointer=checkpointer)


def test_an_update_after_the_sends_counts_as_the_node_that_sent(checkpointer) -> None:
    app = build(checkpointer)
    cfg = {"configurable": {"thread_id": "mr"}}
    app.invoke({"topic": "cats"}, cfg)
    after_sends = next(s for s in app.get_state_history(cfg) if s.next == ("best",))
    assert len(after_sends.values["jokes"]) == 3
    new = app.update_state(after_sends.config, {"jokes": ["extra"]})
    forked = app.get_state(new)
    assert forked.metadata["source"] == "update" and forked.next == ("joke", "joke", "joke")
    out = app.invoke(None, new)
    assert len(out["jokes"]) == 7 and out["jokes"][3] == "extra"
