"""Where LangGraph on our in-memory saver spends its saver calls, beside LangGraph on its own.

engine_overhead.py's lg-savers rows, each saver method wrapped to add up the
CPU time of the thread that calls it (LangGraph calls ``put`` and
``put_writes`` from worker threads it makes per invoke, so each call is timed
there), split by the first call on a thread and the later ones: a thread's
first call runs with cold caches. The two savers' graphs take turns invoke by
invoke, as in engine_overhead.py. µs per superstep, and per call.

    python bench/saver_calls.py                       # every row, 60 invokes each
    python bench/saver_calls.py --rows chain10,agent20_dicts --invokes 100

The wrapper costs a clock read on each side of every call (well under a µs),
both savers alike. A figure, not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import collections
import threading
import time
import uuid
from typing import Any

import engine_overhead as eo

METHODS = ("get_tuple", "put", "put_writes", "get_next_version")


def wrap(saver: Any, acc: collections.Counter[Any]) -> None:
    """Time each of ``saver``'s METHODS by its caller's thread CPU time, into ``acc``."""
    for name in METHODS:
        method = getattr(saver, name)

        def timed(*args: Any, _method: Any = method, _name: str = name, **kwargs: Any) -> Any:
            thread = threading.current_thread()
            seen = thread.__dict__.setdefault("_bench_seen", set())
            key = (_name, "first" if _name not in seen else "later")
            seen.add(_name)
            t0 = time.thread_time()
            try:
                return _method(*args, **kwargs)
            finally:
                acc[key] += time.thread_time() - t0
                acc[(*key, "n")] += 1

        setattr(saver, name, timed)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", default=",".join(eo.ROWS))
    p.add_argument("--invokes", type=int, default=60)
    args = p.parse_args()
    lg, lg_version = eo.load_langgraph()
    ours, ours_where = eo.load_ours()
    if lg is None or ours is None:
        raise SystemExit(f"needs LangGraph and the engine: {lg_version}; {ours_where}")
    sets = {"LG on ours": eo.langgraph_on_ours(lg, ours), "LG on its own": lg}
    print(f"langgraph {lg_version}; {ours_where}; {args.invokes} invokes per row after 3 warm-ups")
    for name in args.rows.split(","):
        row = eo.ROWS[name]
        graphs, accs = {}, {}
        for title, ms in sets.items():
            saver = ms.make_memory()
            accs[title] = collections.Counter()
            wrap(saver, accs[title])
            graphs[title] = row.build(ms).compile(checkpointer=saver)
        for i in range(args.invokes + 3):
            if i == 3:
                for acc in accs.values():
                    acc.clear()
            for graph in graphs.values():
                config = {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": row.steps + 10}
                graph.invoke(row.make_input(), config)
        steps = row.steps * args.invokes
        for title, acc in accs.items():
            per_step = "  ".join(f"{m} {(acc[(m, 'first')] + acc[(m, 'later')]) / steps * 1e6:6.1f}" for m in METHODS)
            per_call = "  ".join(
                f"{m} {k} {acc[(m, k)] / acc[(m, k, 'n')] * 1e6:5.1f} ({acc[(m, k, 'n')] / args.invokes:.1f}/invoke)"
                for m in ("put", "put_writes") for k in ("first", "later") if acc[(m, k, "n")]
            )  # fmt: skip
            print(f"{name:14} {title:13} µs/step: {per_step}")
            print(f"{'':14} {'':13} µs/call: {per_call}")


if __name__ == "__main__":
    main()
