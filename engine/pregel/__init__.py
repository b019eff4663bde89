"""The superstep engine: planning (``_algo``, pure), the loop (``_loop``: set-up and the tick),
running a step's tasks (``_runner``, ``_retry``), saving versions (``_writer``), a host's resumes (``_resume``), the public API
(``_pregel``), the threads sync nodes run on (``_threads``)."""

from engine.pregel._node_builder import NodeBuilder
from engine.pregel._pregel import Pregel
from engine.pregel._resume import NO_ANSWER, Resume
from engine.pregel._threads import NodeThreads, node_threads, set_node_threads

__all__ = ["NO_ANSWER", "NodeBuilder", "NodeThreads", "Pregel", "Resume", "node_threads", "set_node_threads"]
