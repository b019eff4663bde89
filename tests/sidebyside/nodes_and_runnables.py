from typing import Annotated, TypedDict
import operator
from langchain_core.runnables import RunnableLambda, RunnableConfig
from langchain_core.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import StreamWriter
from observe import record

class S(TypedDict):
    log: Annotated[list, operator.add]

class Rec(BaseCallbackHandler):
    def __init__(self): self.events = []
    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, tags=None, metadata=None, **kw):
        self.events.append(("chain_start", kw.get("name"), sorted(tags or []), {k: v for k, v in (metadata or {}).items() if k in ("mine", "langgraph_node", "langgraph_step")}))
    def on_chat_model_start(self, serialized, messages, *, run_id, tags=None, metadata=None, **kw):
        self.events.append(("chat_start", kw.get("name"), sorted(tags or []), {k: v for k, v in (metadata or {}).items() if k in ("mine", "langgraph_node", "langgraph_step")}))
    def on_llm_new_token(self, token, **kw):
        self.events.append(("token", token))

def with_config(state, config: RunnableConfig):
    return {"log": [("config", config["metadata"].get("mine"), config["configurable"]["thread_id"], sorted(config.get("tags") or []))]}
def with_writer(state, writer: StreamWriter):
    writer({"from": "writer"})
    return {"log": ["writer"]}
chain = RunnableLambda(lambda s: {"log": ["lambda"]}) | RunnableLambda(lambda d: {"log": d["log"] + ["piped"]})
model = GenericFakeChatModel(messages=iter([AIMessage("two tokens")]))
def inner_model(state):
    msg = model.invoke("hi")   # no config passed: callbacks still reach it
    return {"log": [msg.content]}

b = StateGraph(S)
b.add_node("with_config", with_config)
b.add_node("with_writer", with_writer)
b.add_node("chain", chain)
b.add_node("inner_model", inner_model)
b.add_node(RunnableLambda(lambda s: {"log": ["named"]}, name="named_lambda"))
b.add_edge(START, "with_config"); b.add_edge("with_config", "with_writer"); b.add_edge("with_writer", "chain"); b.add_edge("chain", "inner_model"); b.add_edge("inner_model", "named_lambda")
g = b.compile(checkpointer=InMemorySaver())
rec = Rec()
cfg = {"configurable": {"thread_id": "t"}, "metadata": {"mine": 7}, "tags": ["mytag"], "callbacks": [rec]}
record("stream", list(g.stream({"log": []}, cfg, stream_mode=["updates", "custom"])))
record("chat events", [e for e in rec.events if e[0] in ("chat_start", "token")])
record("node names", sorted({e[1] for e in rec.events if e[0] == "chain_start"}))
