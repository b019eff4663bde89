"""The reminders agent on LangChain: the demo for graphs built on langchain-core.

``graph`` is the builder (the server compiles it with its checkpointer). Serve it
beside the plain demo::

    graphwire serve --graph reminders=examples.reminders:graph \\
                    --graph reminders_langchain=examples.reminders_langchain:graph
    graphwire chat --graph reminders_langchain

It needs the ``langchain`` extra (langchain-core).
"""

from examples.reminders_langchain._graph import State, add_reminder, build_graph
from examples.reminders_langchain._model import ScriptedChatModel

graph = build_graph()

__all__ = ["graph", "build_graph", "State", "ScriptedChatModel", "add_reminder"]
