"""A task run again at a version the thread moved past, that writes more than its first run did (a resume
addressed to the interrupted version, with a Command's update), on the SQLite saver: every write of the rerun
at an index its first run did not write is kept, as LangGraph's savers keep it."""

import operator
import os
import sqlite3
import tempfile
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, history, record


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    extra: Annotated[list, operator.add]
    flag: bool


def done(state):
    return {"log": ["done"], **({"extra": ["new"]} if state.get("flag") else {})}


def ask(state):
    return {"log": [interrupt("approve?")]}


saver = SqliteSaver(sqlite3.connect(os.path.join(tempfile.mkdtemp(), "gw.db"), check_same_thread=False))
graph = StateGraph(S).add_node("done", done).add_node("ask", ask).add_edge(START, "done").add_edge(START, "ask")
app = graph.compile(checkpointer=saver)
config = {"configurable": {"thread_id": "t"}}
record("first", app.invoke({"log": ["in"]}, config))
paused = app.get_state(config).config
app.update_state(config, None)  # the thread moves past the interrupted version
record("resumed", call("resume", app.invoke, Command(resume="yes", update={"flag": True}), paused))
record("state", app.get_state(config).values)
history(app, config)
