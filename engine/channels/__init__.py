"""Channels: where a run's state lives between supersteps, one kind per module (LangGraph's module names too)."""

from engine.channels.after_finish import LastValueAfterFinish, NamedBarrierValueAfterFinish
from engine.channels.any_value import AnyValue
from engine.channels.base import MISSING, BaseChannel, EmptyChannelError
from engine.channels.binop import BinaryOperatorAggregate
from engine.channels.delta import DeltaChannel
from engine.channels.ephemeral import EphemeralValue
from engine.channels.last_value import LastValue
from engine.channels.named_barrier import NamedBarrierValue
from engine.channels.topic import Topic
from engine.channels.untracked_value import UntrackedValue

__all__ = [
    "BaseChannel",
    "EmptyChannelError",
    "MISSING",
    "AnyValue",
    "LastValue",
    "LastValueAfterFinish",
    "UntrackedValue",
    "BinaryOperatorAggregate",
    "DeltaChannel",
    "Topic",
    "EphemeralValue",
    "NamedBarrierValue",
    "NamedBarrierValueAfterFinish",
]
