"""BinaryOperatorAggregate: a key with a reducer; writes fold through it."""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Generic, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value
from engine.errors import ErrorCode, InvalidUpdateError, create_error_message
from engine.types import Overwrite

__all__ = ["BinaryOperatorAggregate", "as_overwrite", "fold"]

_OVERWRITE = "__overwrite__"

# The last fold, remembered by identity: a router sees its step's state with its task's
# writes folded in (engine.graph._branch.fresh_state), and the step's end then folds the
# same write into the same value; a reducer such as add_messages costs O(state) a call.
_last: tuple[Any, Any, Any, Any] | None = None


def fold(operator: Callable[[Any, Any], Any], current: Any, value: Any) -> Any:
    """``operator(current, value)``; the same three objects as the last call give its result."""
    global _last
    last = _last
    if last is not None and last[1] is current and last[2] is value and last[0] is operator:
        return last[3]
    out = operator(current, value)
    _last = (operator, current, value, out)
    return out


def as_overwrite(value: Any) -> tuple[bool, Any]:
    """``(True, replacement)`` when ``value`` is an Overwrite (or one of its dict forms)."""
    if isinstance(value, Overwrite):
        return True, value.value
    if isinstance(value, dict):
        if len(value) == 1 and _OVERWRITE in value:
            return True, value[_OVERWRITE]
        if value.get("type") == _OVERWRITE and "value" in value:
            return True, value["value"]
    return False, None


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


class BinaryOperatorAggregate(Generic[Value], BaseChannel[Value, Value, Value]):
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
            # As LangGraph: the first write is taken as it is (even an Overwrite).
            self.value = next(it)
        replaced = False
        for v in it:
            is_overwrite, replacement = as_overwrite(v)
            if is_overwrite:
                if replaced:
                    raise InvalidUpdateError(
                        create_error_message(
                            message="Can receive only one Overwrite value per super-step.",
                            error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
                        )
                    )
                self.value = replacement
                replaced = True
            elif not replaced:  # as LangGraph: writes after the step's Overwrite are dropped
                self.value = fold(self.operator, self.value, v)
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def checkpoint(self) -> Any:
        return self.value
