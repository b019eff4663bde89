"""Instructions per superstep of LangGraph itself on its own in-memory saver and on graphwire's, counted by callgrind.

``engine_overhead.py --only lg-savers --savers memory`` times the same runs,
but the two differ by a few percent and its figures move by ten from run to
run on a shared machine; the instructions a run executes move by well under
one (issue 31: "no worse than LangGraph's own saver per step"). The rows are
engine_overhead's, built with LangGraph's StateGraph (this script never
installs the import swap): each saver runs N invokes on new threads in a
section of its own, twice, the two taking turns, the collector off while they
are counted. Instructions are not time (caches, the collector), but they
show what one saver asks of the machine beside the other::

    valgrind --tool=callgrind --dump-before=getpriority --callgrind-out-file=/tmp/gwls.%p \\
        python bench/lg_saver_instructions.py agent20_dicts 10
    python bench/lg_saver_instructions.py agent20_dicts 10 --read /tmp/gwls.<pid>

(~4 minutes a row; without valgrind the first command only runs the sections.)
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import engine_overhead as eo  # noqa: E402
from _callgrind import langgraph_and_ours, main, section_instructions  # noqa: E402

#: the sections, in the order they run: LangGraph's saver, ours, three times. A section's count moves
#: by up to 1 % from one to the next (LangGraph's loop waits on its worker threads' futures, and how
#: often it polls depends on when they finish): the medians are compared, the minima shown beside.
ORDER = ("own", "ours") * 3


def run_sections(row_name: str, n: int) -> None:
    lg, ours = langgraph_and_ours()
    row = eo.ROWS[row_name]
    graphs = {
        "own": row.build(lg).compile(checkpointer=lg.make_memory()),
        "ours": row.build(eo.langgraph_on_ours(lg, ours)).compile(checkpointer=ours.make_memory()),
    }

    def run(side: str) -> None:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": row.steps + 10}
        out = graphs[side].invoke(row.make_input(), config)
        if not row.check(out):
            raise AssertionError(f"unexpected final state: {str(out)[:200]}")

    for _ in range(3):
        for side in graphs:
            run(side)
    gc.collect()
    gc.disable()  # a full collection lands in one section or another and moves its count
    # LangGraph's loop hands puts to worker threads; the interpreter's time-based GIL hand-offs,
    # which valgrind's slowness multiplies, land in one section or another too: a long interval
    # leaves the hand-offs the threads ask for (a future waited on, a lock).
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        for side in ORDER:
            os.getpriority(os.PRIO_PROCESS, 0)  # callgrind dumps what came before
            for _ in range(n):
                run(side)
        os.getpriority(os.PRIO_PROCESS, 0)
    finally:
        sys.setswitchinterval(interval)
        gc.enable()


def read(prefix: str, row_name: str, n: int) -> None:
    """Per-step instructions of each section, from the dumps ``prefix.2`` .. (``.1``: start-up)."""
    steps = eo.ROWS[row_name].steps
    per_step: dict[str, list[float]] = {"own": [], "ours": []}
    for i, side in enumerate(ORDER, start=2):
        per_step[side].append(section_instructions(prefix, i) / n / steps)
    for side, label in (("own", "LangGraph on its own saver"), ("ours", "LangGraph on graphwire's")):
        print(f"{row_name} {label:28} " + "  ".join(f"{v / 1e3:8.1f}k" for v in per_step[side]) + " instructions/step")
    own, ours = statistics.median(per_step["own"]), statistics.median(per_step["ours"])
    low = min(per_step["ours"]) / min(per_step["own"])
    print(f"{row_name} ours/own {ours / own:.3f} ({(ours - own) / 1e3:+.1f}k instructions/step; of the minima {low:.3f})")


if __name__ == "__main__":
    main(__doc__, run_sections, read, "invokes per section")
