"""LangGraph's module path of the join channels (``langgraph.channels.named_barrier_value``)."""

from engine.channels.after_finish import NamedBarrierValueAfterFinish
from engine.channels.named_barrier import NamedBarrierValue

__all__ = ["NamedBarrierValue", "NamedBarrierValueAfterFinish"]
