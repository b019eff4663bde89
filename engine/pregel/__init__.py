"""The superstep engine: planning (``_algo``), the loop (``_loop``), the public API (``_pregel``)."""

from engine.pregel._pregel import Pregel

__all__ = ["Pregel"]
