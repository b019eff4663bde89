"""The superstep engine: planning (``_algo``), the loop (``_loop``), the public API (``_pregel``),
the threads sync nodes run on (``_threads``)."""

from engine.pregel._pregel import Pregel
from engine.pregel._threads import NodeThreads, node_threads, set_node_threads

__all__ = ["NodeThreads", "Pregel", "node_threads", "set_node_threads"]
