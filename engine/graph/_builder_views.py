"""What code built on LangGraph reads off a StateGraph builder: its schemas (LangGraph's attributes).

langgraph-swarm checks ``builder.schemas[builder.state_schema]`` for its
``active_agent`` key; these views answer from what the builder read.
"""

from __future__ import annotations

from typing import Any

from engine.graph._schema import SchemaInfo, read_schema

__all__ = ["BuilderViews"]


class BuilderViews:
    """``state_schema``, ``input_schema``, ``output_schema`` and ``schemas`` of a StateGraph, as LangGraph's builder has them."""

    state: SchemaInfo
    input: SchemaInfo
    output: SchemaInfo
    nodes: dict[str, Any]

    @property
    def state_schema(self) -> Any:
        return self.state.schema

    @property
    def input_schema(self) -> Any:
        return self.input.schema

    @property
    def output_schema(self) -> Any:
        return self.output.schema

    @property
    def schemas(self) -> dict[Any, dict[str, Any]]:
        """Each schema the graph reads or writes (state, input, output, nodes' inputs) -> its keys' channels and managed values."""
        infos = [self.state, self.input, self.output]
        infos += [read_schema(n.input_schema) for n in self.nodes.values() if n.input_schema is not None]
        return {info.schema: {**info.channels, **info.managed} for info in infos}
