"""get_input_jsonschema / get_output_jsonschema (and the old config schema, with a context schema) of TypedDict (input_schema), Pydantic, dataclass and MessagesState graphs, as LangGraph makes them."""
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import START, StateGraph
from observe import call
class S(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]
class I(TypedDict):
    x: int
g = StateGraph(S, input_schema=I).add_node("n", lambda s: {"log": ["n"]}).add_edge(START, "n").compile()
call("input schema", lambda: g.get_input_jsonschema())
call("output schema", lambda: g.get_output_jsonschema())



call("nodes", lambda: sorted(g.nodes))
call("builder nodes", lambda: sorted(g.builder.nodes))
from dataclasses import dataclass, field
from typing import Optional
from pydantic import BaseModel
@dataclass
class D:
    name: str
    n: int = 3
    tags: Annotated[list[str], operator.add] = field(default_factory=list)
    note: Optional[str] = None
class P(BaseModel):
    a: int
    b: str = "x"
call("dataclass", lambda: StateGraph(D).add_node("n", lambda s: {}).add_edge(START, "n").compile().get_input_jsonschema())
call("pydantic", lambda: StateGraph(P).add_node("n", lambda s: {}).add_edge(START, "n").compile().get_output_jsonschema())
from langgraph.graph import MessagesState
call("messages", lambda: sorted(StateGraph(MessagesState).add_node("n", lambda s: {}).add_edge(START, "n").compile().get_input_jsonschema()["properties"]))
call("named", lambda: StateGraph(D).add_node("n", lambda s: {}).add_edge(START, "n").compile(name="mine").get_output_jsonschema()["title"])
class Ctx(TypedDict):
    user: str
import warnings
warnings.simplefilter("ignore", DeprecationWarning)
withctx = StateGraph(S, context_schema=Ctx).add_node("n", lambda s: {}).add_edge(START, "n").compile(name="Ctx Graph")
call("config schema, context", lambda: withctx.get_config_jsonschema(include=["tags", "recursion_limit"]))
call("config schema model, context", lambda: withctx.config_schema().model_json_schema())
call("config schema, none", lambda: g.get_config_jsonschema(include=["tags"]))
