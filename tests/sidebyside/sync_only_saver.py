"""A checkpointer written with only the sync methods, as many LangGraph users write one (tests/checkpoint/test_sync_only_saver.py)."""
import operator
from typing import Annotated, TypedDict
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, get_checkpoint_id
from langgraph.graph import START, StateGraph
from observe import record, history, call

class DictSaver(BaseCheckpointSaver):
    def __init__(self):
        super().__init__()
        self.rows = {}   # (thread, ns, id) -> (checkpoint, metadata, parent)
        self.writes = {}
    def get_tuple(self, config):
        c = config["configurable"]; t, ns = c["thread_id"], c.get("checkpoint_ns", "")
        cid = get_checkpoint_id(config)
        keys = [k for k in self.rows if k[0] == t and k[1] == ns and (cid is None or k[2] == cid)]
        if not keys: return None
        k = max(keys, key=lambda k: k[2])
        ck, md, parent = self.rows[k]
        return CheckpointTuple({"configurable": {"thread_id": t, "checkpoint_ns": ns, "checkpoint_id": k[2]}}, ck, md,
            {"configurable": {"thread_id": t, "checkpoint_ns": ns, "checkpoint_id": parent}} if parent else None,
            [(tid, ch, v) for (tid, idx), (ch, v) in sorted(self.writes.get(k, {}).items())])
    def list(self, config, *, filter=None, before=None, limit=None):
        t = config["configurable"]["thread_id"]
        for k in sorted((k for k in self.rows if k[0] == t), key=lambda k: k[2], reverse=True):
            yield self.get_tuple({"configurable": {"thread_id": k[0], "checkpoint_ns": k[1], "checkpoint_id": k[2]}})
    def put(self, config, checkpoint, metadata, new_versions):
        c = config["configurable"]; t, ns = c["thread_id"], c.get("checkpoint_ns", "")
        self.rows[(t, ns, checkpoint["id"])] = (checkpoint, metadata, c.get("checkpoint_id"))
        return {"configurable": {"thread_id": t, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"]}}
    def put_writes(self, config, writes, task_id, task_path=""):
        c = config["configurable"]
        d = self.writes.setdefault((c["thread_id"], c.get("checkpoint_ns", ""), c["checkpoint_id"]), {})
        for i, (ch, v) in enumerate(writes): d[(task_id, i)] = (ch, v)

class State(TypedDict):
    log: Annotated[list, operator.add]

b = StateGraph(State)
b.add_node("a", lambda s: {"log": ["a"]}); b.add_node("b", lambda s: {"log": ["b"]})
b.add_edge(START, "a"); b.add_edge("a", "b")
g = b.compile(checkpointer=DictSaver())
cfg = {"configurable": {"thread_id": "1"}}
call("first", g.invoke, {"log": ["x"]}, cfg)
call("second", g.invoke, {"log": ["y"]}, cfg)
record("state", g.get_state(cfg))
history(g, cfg)
