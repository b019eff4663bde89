"""Issue 18 item 3: SqliteCache: cached writes outlive the cache object (a restart), beside the saver's file."""

import os
import sqlite3
import tempfile
import time
import operator
from typing import Annotated, TypedDict

from langgraph.cache.sqlite import SqliteCache
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy

from observe import record


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


calls = []


def slow(state):
    calls.append(state["x"])
    return {"log": [f"slow {state['x']}"]}


def build(path, policy):
    saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    b = StateGraph(S).add_node("slow", slow, cache_policy=policy).add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "slow").add_edge("slow", "after")
    return b.compile(checkpointer=saver, cache=SqliteCache(path=path))


path = os.path.join(tempfile.mkdtemp(), "gw.db")
first = build(path, CachePolicy(ttl=600))
record("first", first.invoke({"x": 1}, {"configurable": {"thread_id": "1"}}))
# A new process would build everything again on the same file: the entry is there.
second = build(path, CachePolicy(ttl=600))
record("after a restart", list(second.stream({"x": 1}, {"configurable": {"thread_id": "2"}}, stream_mode="updates")))
record("other input", list(second.stream({"x": 2}, {"configurable": {"thread_id": "3"}}, stream_mode="updates")))
record("calls", list(calls))
record("state", second.get_state({"configurable": {"thread_id": "2"}}).values)
second.clear_cache(["slow"])
build(path, CachePolicy(ttl=600)).invoke({"x": 1}, {"configurable": {"thread_id": "4"}})
record("after clear_cache", list(calls))

calls.clear()
short = build(path, CachePolicy(ttl=1))
short.invoke({"x": 9}, {"configurable": {"thread_id": "t1"}})
short.invoke({"x": 9}, {"configurable": {"thread_id": "t2"}})
record("within the ttl", list(calls))
time.sleep(1.1)  # a program, not a test: the real clock passes the ttl
short.invoke({"x": 9}, {"configurable": {"thread_id": "t3"}})
record("past the ttl", list(calls))

direct = SqliteCache(path=path)
direct.set({(("a", "b"), "k"): ({"v": [1, 2]}, None), (("a,b",), "k"): ("comma", None)})
record("direct get", sorted(direct.get([(("a", "b"), "k"), (("a,b",), "k"), (("a",), "k")]).items()))
direct.clear([("a", "b")])
record("direct after clear", sorted(direct.get([(("a", "b"), "k"), (("a,b",), "k")]).items()))
