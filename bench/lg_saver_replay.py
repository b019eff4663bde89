"""Instructions per saver call of LangGraph's own in-memory saver and of graphwire's, the calls replayed alone.

``lg_saver_instructions.py`` counts a whole step of LangGraph on each saver,
where the saver is a fraction and LangGraph's loop the rest. This script
records the calls one invoke of a row makes on each saver (``put``,
``put_writes``, ``get_next_version``, with the objects LangGraph passed), then
plays them again, N invokes' worth on new threads of one saver, each method in
a section of its own, twice, the two savers taking turns, the collector off:
what each method costs a call, and where the two savers differ, without the
loop around them::

    valgrind --tool=callgrind --dump-before=getpriority --callgrind-out-file=/tmp/gwrp.%p \\
        python bench/lg_saver_replay.py agent20_dicts 20
    python bench/lg_saver_replay.py agent20_dicts 20 --read /tmp/gwrp.<pid>

(about a minute a row). A side's calls are its own: LangGraph's saver makes
string versions, graphwire's ints, so each replays what LangGraph asked of it.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import engine_overhead as eo  # noqa: E402
from _callgrind import langgraph_and_ours, main, section_instructions  # noqa: E402

METHODS = ("put", "put_writes", "get_next_version")
SIDES = ("own", "ours")
#: the sections, in the order they run (after a warm-up of each side's whole replay)
ORDER = [(side, method) for _ in range(2) for method in METHODS for side in SIDES]

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def _record(row: eo.Row, modules: eo.ModuleSet, make_saver: Any) -> list[Call]:
    """The saver calls one invoke of ``row`` makes, in order, with what was passed."""
    calls: list[Call] = []
    saver = make_saver()
    for method in METHODS:  # an instance attribute in front of the class's method: recorded, then called
        real = getattr(saver, method)
        setattr(saver, method, lambda *a, _m=method, _f=real, **k: (calls.append((_m, a, k)), _f(*a, **k))[1])
    graph = row.build(modules).compile(checkpointer=saver)
    graph.invoke(row.make_input(), {"configurable": {"thread_id": "recorded"}, "recursion_limit": row.steps + 10})
    return calls


def _on_thread(call: Call, thread_id: str) -> Call:
    """``call`` with its config (put's and put_writes' first argument) naming ``thread_id``."""
    method, args, kwargs = call
    if method == "get_next_version":
        return call
    config = dict(args[0])
    config["configurable"] = {**config["configurable"], "thread_id": thread_id}
    return method, (config, *args[1:]), kwargs


def run_sections(row_name: str, n: int) -> None:
    lg, ours = langgraph_and_ours()
    row = eo.ROWS[row_name]
    makers = {"own": lg.make_memory, "ours": ours.make_memory}
    recorded = {"own": _record(row, lg, lg.make_memory), "ours": _record(row, eo.langgraph_on_ours(lg, ours), ours.make_memory)}
    savers = {side: makers[side]() for side in SIDES}
    plan = [(side, METHODS) for side in SIDES] + [(side, (method,)) for side, method in ORDER]
    # every replay on threads of its own, made before anything is counted
    replays = [[[_on_thread(c, f"r{j}-{i}") for c in recorded[side]] for i in range(n)] for j, (side, _) in enumerate(plan)]

    def replay(j: int) -> None:
        side, methods = plan[j]
        saver = savers[side]
        for calls in replays[j]:
            for method, args, kwargs in calls:
                if method in methods:
                    getattr(saver, method)(*args, **kwargs)

    for j in range(len(SIDES)):
        replay(j)
    gc.collect()
    gc.disable()
    try:
        for j in range(len(SIDES), len(plan)):
            os.getpriority(os.PRIO_PROCESS, 0)  # callgrind dumps what came before
            replay(j)
        os.getpriority(os.PRIO_PROCESS, 0)
    finally:
        gc.enable()
    counts = {side: {m: sum(1 for c in recorded[side] if c[0] == m) for m in METHODS} for side in SIDES}
    print(f"calls an invoke makes: {counts}", file=sys.stderr)


def read(prefix: str, row_name: str, n: int) -> None:
    """Per-call instructions of each section, from the dumps ``prefix.2`` ..."""
    lg, ours = langgraph_and_ours()
    row = eo.ROWS[row_name]
    recorded = {"own": _record(row, lg, lg.make_memory), "ours": _record(row, eo.langgraph_on_ours(lg, ours), ours.make_memory)}
    per_call: dict[tuple[str, str], list[float]] = {}
    for i, (side, method) in enumerate(ORDER, start=2):
        calls = sum(1 for c in recorded[side] if c[0] == method) * n
        per_call.setdefault((side, method), []).append(section_instructions(prefix, i) / calls)
    for method in METHODS:
        own, ours_ = min(per_call[("own", method)]), min(per_call[("ours", method)])
        print(
            f"{row_name} {method:17} LangGraph's {' '.join(f'{v / 1e3:7.2f}k' for v in per_call[('own', method)])}"
            f"  graphwire's {' '.join(f'{v / 1e3:7.2f}k' for v in per_call[('ours', method)])}"
            f"  ours - own {(ours_ - own) / 1e3:+.2f}k a call"
        )


if __name__ == "__main__":
    main(__doc__, run_sections, read, "invokes' worth of calls replayed a section")
