"""CompiledStateGraph: what ``StateGraph.compile()`` returns, a :class:`~engine.pregel.Pregel` that knows its builder.

Its schemas (``get_input_jsonschema``...), its drawing (``get_graph``, with
``xray``) and how a ``Command`` given as input becomes channel writes are
the builder's; running is Pregel's.
"""

from __future__ import annotations

from typing import Any

from engine.errors import InvalidUpdateError
from engine.graph._branch import route_writes
from engine.graph._draw import DrawableGraph, draw, from_langchain
from engine.graph._schema import json_schema
from engine.graph._topology import Topology
from engine.pregel import Pregel
from engine.types import Command

__all__ = ["CompiledStateGraph"]


class CompiledStateGraph(Pregel):
    """A compiled StateGraph: run it with invoke/stream/ainvoke/astream."""

    stream_mode = "updates"  # LangGraph's CompiledStateGraph default

    def __init__(self, *, topology: Topology, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.topology = topology

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The input schema's JSON Schema, as LangGraph makes it (:func:`~engine.graph._schema.json_schema`)."""
        return json_schema(self.builder.input, self.get_name("Input"))

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The output schema's JSON Schema, as LangGraph makes it."""
        return json_schema(self.builder.output, self.get_name("Output"))

    def get_graph(self, config: Any = None, *, xray: int | bool = False) -> DrawableGraph:
        """The graph's nodes and edges as LangGraph 1.2 draws them (:mod:`engine.graph._draw`).

        ``xray``: draw the nodes of subgraphs (``True``: at every depth; a
        number: that many levels). ``config`` changes nothing drawn, as in LangGraph.
        """
        subgraphs = {}
        if xray:
            deeper = xray if isinstance(xray, bool) or xray <= 0 else xray - 1
            from engine.pregel.remote import RemoteGraph

            for name, node in self.nodes.items():
                if node.subgraph is not None and node.subgraph.checkpointer is not False:
                    subgraphs[name] = node.subgraph.get_graph(config, xray=deeper)
                elif isinstance(runs := getattr(self.builder.nodes.get(name), "fn", None), RemoteGraph):  # as LangGraph: its server's drawing
                    subgraphs[name] = from_langchain(runs.get_graph(config, xray=deeper))
        return draw(
            self.topology,
            nodes=self.nodes,
            channels=self.channels,
            index=self.spec.triggers_to_nodes,
            interrupt_before=self.interrupt_before,
            interrupt_after=self.interrupt_after,
            subgraphs=subgraphs,
            runs={n: node.fn for n, node in self.builder.nodes.items()},
        )

    async def aget_graph(self, config: Any = None, *, xray: int | bool = False) -> DrawableGraph:
        return self.get_graph(config, xray=xray)

    def map_command(self, cmd: Command) -> list[tuple[str, Any]]:
        """A ``Command`` given as input on a thread with state: its update and goto as writes.

        As LangGraph's: ``update`` (a dict, or a list of ``(key, value)``)
        writes state keys (others are ignored), ``goto`` a node's trigger or a
        ``Send``; a destination that names no node leads nowhere.
        """
        if cmd.graph == Command.PARENT:
            raise InvalidUpdateError("Command(graph=PARENT) as input: there is no parent graph")
        writes = route_writes(self.topology, "input", cmd.goto)
        update = cmd.update
        if update:
            pairs = update.items() if isinstance(update, dict) else update
            try:
                writes += [(k, v) for k, v in pairs if k in self.state_keys]
            except (TypeError, ValueError):
                raise InvalidUpdateError(
                    f"Command(update=...) takes a dict of state keys or a list of (key, value) pairs, not {update!r:.80}"
                ) from None
        return writes


# Its public path, as LangGraph names it (langgraph.graph.state): drawings' JSON name the class so.
CompiledStateGraph.__module__ = "engine.graph.state"
