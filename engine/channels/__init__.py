"""Channels: where a run's state lives between supersteps, one kind per module."""

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError
from engine.channels.binop import BinaryOperatorAggregate
from engine.channels.ephemeral import EphemeralValue
from engine.channels.last_value import LastValue
from engine.channels.named_barrier import NamedBarrierValue
from engine.channels.topic import Topic

__all__ = [
    "BaseChannel",
    "EmptyChannelError",
    "MISSING",
    "LastValue",
    "BinaryOperatorAggregate",
    "Topic",
    "EphemeralValue",
    "NamedBarrierValue",
]
