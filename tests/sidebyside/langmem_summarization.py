"""langmem's SummarizationNode as create_react_agent's pre_model_hook (a running summary kept in the state's
context): three turns with a tiny token budget, the summary model a fake; the messages the model saw.
The state names RunningSummary, as langmem's docs write it, so the engine may store it (typed
`dict[str, Any]`, it must be registered on the saver: docs/porting.md, "Serialization is an allowlist").
Needs `pip install langmem`."""

import itertools

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentState
from langmem.short_term import RunningSummary, SummarizationNode

from observe import record


class Fake(GenericFakeChatModel):
    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([type(m).__name__ for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


class State(AgentState):
    context: dict[str, RunningSummary]  # as langmem's docs write it


summarizer = GenericFakeChatModel(messages=(AIMessage(f"summary {i}") for i in itertools.count()))
hook = SummarizationNode(token_counter=len, model=summarizer, max_tokens=4, max_tokens_before_summary=3, max_summary_tokens=2)
model = Fake(messages=(AIMessage(f"answer {i}", id=f"a{i}") for i in itertools.count()), seen=[])
agent = create_react_agent(model, tools=[], pre_model_hook=hook, state_schema=State, checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
for i in range(3):
    out = agent.invoke({"messages": [{"role": "user", "content": f"turn {i}"}]}, config)
    summary = out.get("context", {}).get("running_summary")
    record(f"turn {i}", {
        "messages": [(type(m).__name__, m.content) for m in out["messages"]],
        "summary": summary.summary if isinstance(summary, RunningSummary) else summary,
    })
record("model saw", model.seen)
