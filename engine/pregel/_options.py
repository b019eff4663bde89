"""LangGraph 1.2's run options (``invoke``/``stream`` and their async twins) beyond those the loop takes.

``checkpoint_during`` (LangGraph's older form of ``durability``) is mapped
as LangGraph maps it; ``subgraphs`` is honoured by ``astream`` (the chunks
of subgraphs running in its tasks come too, each as ``(namespace, chunk)``:
``()`` for the root graph's, ``("node:task_id", ...)`` for a subgraph's);
the others are refused unless left at their defaults
(:mod:`engine._internal._unsupported`).
"""

from __future__ import annotations

import warnings

from engine._internal._unsupported import refuse

__all__ = ["durability_of"]


def durability_of(
    durability: str | None,
    *,
    version: str = "v1",
    checkpoint_during: bool | None = None,
) -> str | None:
    """The durability a run uses; NotImplementedError for an option the engine does not honour yet."""
    refuse(
        "invoke/stream",
        version=None if version == "v1" else version,
    )
    if checkpoint_during is None:
        return durability
    from engine.warnings import LangGraphDeprecatedSinceV10

    warnings.warn(
        "`checkpoint_during` is deprecated and will be removed. Please use `durability` instead.",
        LangGraphDeprecatedSinceV10,
        stacklevel=4,
    )
    if durability is not None:
        raise ValueError("Cannot use both `checkpoint_during` and `durability` parameters. Please use `durability` instead.")
    return "async" if checkpoint_during else "exit"
