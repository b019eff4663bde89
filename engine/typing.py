"""The type variables LangGraph's generic classes are written with (``langgraph.typing``).

Code built on LangGraph (LangChain 1.x's agents) annotates its own generic
classes with them; they carry no behaviour. A state is anything a graph can
hold, so their bound is ``Any``; the defaults are LangGraph's (a context of
None, input and output types that of the state).
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypeVar

__all__ = (
    "StateT", "StateT_co", "StateT_contra", "ContextT", "ContextT_contra", "InputT", "OutputT", "NodeInputT",
    "NodeInputT_contra",
)  # fmt: skip

StateT = TypeVar("StateT", bound=Any)
StateT_co = TypeVar("StateT_co", bound=Any, covariant=True)
StateT_contra = TypeVar("StateT_contra", bound=Any, contravariant=True)
ContextT = TypeVar("ContextT", bound=Any, default=None)
ContextT_contra = TypeVar("ContextT_contra", bound=Any, contravariant=True, default=None)
InputT = TypeVar("InputT", bound=Any, default=StateT)
OutputT = TypeVar("OutputT", bound=Any, default=StateT)
NodeInputT = TypeVar("NodeInputT", bound=Any)
NodeInputT_contra = TypeVar("NodeInputT_contra", bound=Any, contravariant=True)
