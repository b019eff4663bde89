"""The superstep engine: planning (``_algo``, pure), the loop (``_loop``: set-up and the tick),
running a step's tasks (``_runner``, ``_retry``), saving versions (``_writer``), the public API
(``_pregel``), the threads sync nodes run on (``_threads``)."""

from engine.pregel._pregel import Pregel
from engine.pregel._threads import NodeThreads, node_threads, set_node_threads

__all__ = ["NodeThreads", "Pregel", "node_threads", "set_node_threads"]
