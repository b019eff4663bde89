"""BinaryOperatorAggregate: a key with a reducer; writes fold through it."""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError

__all__ = ["BinaryOperatorAggregate"]


def _initial(typ: Any) -> Any:
    """An empty value of ``typ`` to fold into, when one can be made."""
    origin = getattr(typ, "__origin__", None) or typ
    if origin in (collections.abc.Sequence, collections.abc.MutableSequence):
        origin = list
    elif origin in (collections.abc.Set, collections.abc.MutableSet):
        origin = set
    elif origin in (collections.abc.Mapping, collections.abc.MutableMapping):
        origin = dict
    if isinstance(origin, type):
        try:
            return origin()
        except Exception:
            return MISSING
    return MISSING


class BinaryOperatorAggregate(BaseChannel[Any]):
    __slots__ = ("value", "operator")

    def __init__(self, typ: Any, operator: Callable[[Any, Any], Any], key: str = "") -> None:
        super().__init__(typ, key)
        self.operator = operator
        self.value: Any = _initial(typ)

    def from_checkpoint(self, checkpoint: Any) -> "BinaryOperatorAggregate":
        ch = BinaryOperatorAggregate.__new__(BinaryOperatorAggregate)
        ch.typ, ch.key, ch.operator = self.typ, self.key, self.operator
        ch.value = _initial(self.typ) if checkpoint is MISSING else checkpoint
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        it = iter(values)
        if self.value is MISSING:
            self.value = next(it)
        for v in it:
            self.value = self.operator(self.value, v)
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def checkpoint(self) -> Any:
        return self.value
