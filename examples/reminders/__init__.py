"""The reminders agent, graphwire's demo: say "remind me to call mom at 5pm" (it asks first) or "weather in Oslo".

``graph`` is the builder (the server compiles it with its checkpointer);
``build_graph()`` makes one with another model or forecast delay.
"""

from examples.reminders._graph import YES, State, build_graph, forecast_text
from examples.reminders._model import scripted_model

graph = build_graph()

__all__ = ["graph", "build_graph", "State", "scripted_model", "forecast_text", "YES"]
