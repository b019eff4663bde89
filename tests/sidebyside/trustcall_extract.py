"""trustcall's create_extractor (a LangGraph graph of its own): a schema extracted from a valid first
answer, and a second run whose first answer fails validation and is patched. Needs `pip install trustcall`."""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from pydantic import BaseModel
from trustcall import create_extractor

from observe import record


class Person(BaseModel):
    name: str
    age: int


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(mid, name, args):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-0"}])


ok = create_extractor(Fake(messages=iter([call("m1", "Person", {"name": "Ann", "age": 40})])), tools=[Person], tool_choice="Person")
out = ok.invoke({"messages": [("user", "Ann is 40")]})
record("valid", [r.model_dump() for r in out["responses"]])

fixed = create_extractor(Fake(messages=iter([
    call("m1", "Person", {"name": "Bo", "age": "old"}),
    call("m2", "PatchFunctionErrors", {"json_doc_id": "m1-0", "planned_edits": "age to 30", "patches": [{"op": "replace", "path": "/age", "value": 30}]}),
])), tools=[Person], tool_choice="Person")
try:
    out = fixed.invoke({"messages": [("user", "Bo is old")]})
    record("patched", [r.model_dump() for r in out["responses"]])
except Exception as e:
    record("patched", [type(e).__name__])
