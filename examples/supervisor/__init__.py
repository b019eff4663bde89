"""A multi-agent graph: a supervisor hands a request to a researcher agent, which hands off to a writer agent.

Each agent is a subgraph (a compiled graph added as a node) on a scripted
model that streams its words as tokens, so a caller sees which agent is
speaking by the namespace its events carry. The researcher hands off with
``Command(graph=Command.PARENT, goto="writer")``; the writer asks for
approval with ``interrupt()`` before it publishes. Serve it::

    graphwire serve --graph supervisor=examples.supervisor:graph

``graph`` is the builder (the server compiles it with its checkpointer).
Messages are plain dicts and tokens come from ``get_message_writer()``, as in
``examples.reminders``: no LangChain needed.
"""

from examples.supervisor._graph import State, build_graph, scripted_reply

graph = build_graph()

__all__ = ["graph", "build_graph", "State", "scripted_reply"]
