"""The functional API as the docs show it: a chat entrypoint with previous, entrypoint.final,
tasks in parallel, an interrupt inside a task, streams of updates and custom events."""

import asyncio

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt

from observe import history, record


@task
def shout(text: str) -> str:
    get_stream_writer()({"shouting": text})
    return text.upper()


@task
def confirm(text: str) -> bool:
    return interrupt({"confirm": text}) == "yes"


@entrypoint(checkpointer=InMemorySaver())
def chat(message: str, *, previous=None):
    history_ = (previous or []) + [message]
    loud = [f.result() for f in [shout(m) for m in history_[-2:]]]
    if message == "delete" and not confirm(message).result():
        return entrypoint.final(value={"kept": history_[:-1]}, save=history_[:-1])
    return entrypoint.final(value={"loud": loud, "count": len(history_)}, save=history_)


cfg = {"configurable": {"thread_id": "f"}}
record("first", chat.invoke("hi", cfg))
record("second", chat.invoke("there", cfg))
chunks = list(chat.stream("again", cfg, stream_mode=["updates", "custom"]))
# the two shout tasks run at once: their events come as each runs, on both
record("stream", sorted(map(repr, chunks[:-1])) + [chunks[-1]])
record("delete asks", chat.invoke("delete", cfg))
record("delete answered", chat.invoke(Command(resume="no"), cfg))
record("after", chat.invoke("last", cfg))
record("state", chat.get_state(cfg))
history(chat, cfg)


@entrypoint()
async def fan(xs: list) -> int:
    futures = [shout(str(x)) for x in xs]
    return sum([len(await f) for f in futures])


record("async fan", asyncio.run(fan.ainvoke([1, 22, 333])))
