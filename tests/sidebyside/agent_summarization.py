"""create_agent with SummarizationMiddleware: a small trigger (by messages), its summary model (a fake), the
history replaced by the summary and the kept messages (RemoveMessage of all), turn after turn; the history."""

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from observe import history, record


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


class Fake(GenericFakeChatModel):
    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.content) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


main = Fake(
    messages=iter(
        [
            AIMessage("one", id="a1"),
            AIMessage("", id="a2", tool_calls=[{"name": "echo", "args": {"text": "two"}, "id": "t2"}]),
            AIMessage("two done", id="a3"),
            AIMessage("three", id="a4"),
            AIMessage("four", id="a5"),
        ]
    ),
    seen=[],
)
summarizer = Fake(messages=iter([AIMessage(f"summary {i}", id=f"s{i}") for i in range(1, 5)]), seen=[])
middleware = SummarizationMiddleware(model=summarizer, trigger=("messages", 4), keep=("messages", 2))
agent = create_agent(main, [echo], middleware=[middleware], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
for i, text in enumerate(["first", "second", "third", "fourth"], 1):
    record(f"turn {i}", agent.invoke({"messages": [{"role": "user", "content": text, "id": f"h{i}"}]}, config))
record("model saw", main.seen)
record("summarizer saw", [[kind for kind, _ in seen] for seen in summarizer.seen])
record("state", agent.get_state(config))
history(agent, config)
