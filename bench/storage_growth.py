"""Storage growth of a chat thread: graphwire's savers next to LangGraph's PostgresSaver.

Two graphs (``--graph``): the chat below, and a supervisor with one agent
subgraph (issue 17; see :func:`build`), on PostgreSQL in both engines, with
the same messages per turn. For the supervisor the bytes are also broken
down by table, the root's rows apart from the subgraphs': per call a
subgraph is handed the whole conversation (its input, ``__start__``; a
per-invocation namespace's first ``messages`` value, which has no earlier
version in its namespace to be a delta of) and hands it back (its output,
written to the parent as the agent task's pending writes). LangGraph stores
each whole; ours stores a reference to the thread's rows and what is new.

A chat of T turns, for T = 10, 50, 200 by default. Each turn appends a
~200-byte user message (the input) and a ~500-byte assistant message and
runs two nodes: ``model`` appends the assistant's message, ``post`` writes a
small counter. ``messages`` is ``Annotated[list, add_messages]`` (LangGraph
with DeltaChannel: ``DeltaChannel(_messages_delta_reducer)``, its beta
opt-in). Both engines get the same LangChain message objects with the same
ids and texts (seeded pseudo-random words, so compression sees text, not
repeated bytes), so each stores the same conversation its own way.

Columns (each configuration and each T in a fresh PostgreSQL schema, or a
fresh SQLite file):

* ``ours PG``: graphwire's PostgresSaver (deltas on, the default);
* ``ours PG, no deltas``: the same with ``delta_fanout=None`` (what deltas buy);
* ``ours SQLite``: graphwire's SqliteSaver (file plus WAL, checkpointed);
* ``LG on ours PG``: real LangGraph running the same graph with graphwire's
  PostgresSaver as its checkpointer (issue 31 item 2: our savers are
  LangGraph checkpointers, and keep their storage under LangGraph);
* ``LG PG``: LangGraph's PostgresSaver, default channels;
* ``LG PG+Delta``: LangGraph's PostgresSaver with DeltaChannel.

Bytes are ``pg_total_relation_size`` (heap, TOAST, indexes) summed over the
saver's three tables, as they stand after the run (no VACUUM). Also printed:
the fitted growth exponent (least-squares slope of log bytes over log T),
both raw and net of the empty tables' size (the net one is the stricter: it
is what the target is checked on), and the median ``get_state`` latency on
the longest thread (measured round-robin across the configurations once all
are written, so each sees the same machine). The issue's targets are checked at the end and printed
as holds / FAILS. This prints figures; it asserts nothing, and exits 1 only
when a configuration errored or returned a wrong state.

Usage (LangGraph installed: ``pip install -r bench/requirements.txt``)::

    python bench/storage_growth.py                  # T = 10, 50, 200
    python bench/storage_growth.py --turns 10,50    # quicker
    GRAPHWIRE_BENCH_PG_DSN=postgresql://... python bench/storage_growth.py
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypedDict

# The engine lives at the repository root (see engine_overhead.py for why this way).
_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    _n_env = len([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(min(1 + _n_env, len(sys.path)), _ROOT)

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

DSN = os.environ.get("GRAPHWIRE_BENCH_PG_DSN") or os.environ.get(
    "GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test"
)
OURS_TABLES = ("checkpoints", "blobs", "writes")
LG_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
GET_STATE_REPS = 30
THREAD = "chat"

# -- the conversation ----------------------------------------------------------------
_rng = random.Random(20240601)
_WORDS = ["".join(_rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(_rng.randint(2, 9))) for _ in range(3000)]


def text(seed: int, size: int) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(_WORDS)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


# "langchain": both engines get LangChain message objects (the same objects:
# the storage comparison is like for like). "dicts": plain dicts, graphwire's
# own message form; LangGraph's reducers turn them into LangChain objects anyway.
MESSAGES = "langchain"


def user_message(turn: int) -> Any:
    if MESSAGES == "dicts":
        return {"role": "user", "content": text(2 * turn, 200), "id": f"user-{turn}"}
    from langchain_core.messages import HumanMessage

    return HumanMessage(content=text(2 * turn, 200), id=f"user-{turn}")


def assistant_message(turn: int) -> Any:
    if MESSAGES == "dicts":
        return {"role": "assistant", "content": text(2 * turn + 1, 500), "id": f"assistant-{turn}"}
    from langchain_core.messages import AIMessage

    return AIMessage(content=text(2 * turn + 1, 500), id=f"assistant-{turn}")


def _id_content(m: Any) -> tuple[Any, Any]:
    return (m["id"], m["content"]) if isinstance(m, dict) else (m.id, m.content)


# -- the graphs ----------------------------------------------------------------------------
def build(StateGraph: Any, START: Any, END: Any, reducer: Any, graph: str = "chat") -> Any:
    """The chat graph (model, then post), or a supervisor with one agent subgraph.

    ``graph``: "chat"; "supervisor" (``supervisor`` bumps the counter, then
    ``agent``, a compiled graph added as a node, whose ``model`` appends the
    reply: the subgraph's versions go to the same thread under a namespace
    per invocation, ``agent:<task id>``, as LangGraph's default); or
    "supervisor, stable agent" (the agent compiled with
    ``checkpointer=True``: one namespace, ``agent``, across the turns).
    """
    # Functional form: the reducer is a local, which string annotations could not name.
    Chat = TypedDict("Chat", {"messages": Annotated[list, reducer], "turns": int}, total=False)  # type: ignore[misc]

    def model(state: Any) -> dict[str, Any]:
        return {"messages": [assistant_message(len(state["messages"]) // 2)]}

    def post(state: Any) -> dict[str, Any]:
        return {"turns": state.get("turns", 0) + 1}

    g = StateGraph(Chat)
    if graph == "chat":
        g.add_node("model", model)
        g.add_node("post", post)
        g.add_edge(START, "model")
        g.add_edge("model", "post")
        g.add_edge("post", END)
        return g
    agent = StateGraph(Chat)
    agent.add_node("model", model)
    agent.add_edge(START, "model")
    agent.add_edge("model", END)
    g.add_node("supervisor", post)
    g.add_node("agent", agent.compile(checkpointer=True if graph == "supervisor, stable agent" else None))
    g.add_edge(START, "supervisor")
    g.add_edge("supervisor", "agent")
    g.add_edge("agent", END)
    return g


@dataclass
class Store:
    """One configuration's saver on fresh storage, and how to measure it."""

    saver: Any
    graph: Any
    size: Callable[[], int]
    close: Callable[[], None]
    baseline: int = 0
    #: where the bytes are (ours: per table, the root's rows vs the subgraphs'), or None
    breakdown: Callable[[], dict[str, int]] | None = None


@dataclass
class Config:
    name: str
    open: Callable[[str], Store]  # argument: a unique name for the schema or file
    notes: list[str] = field(default_factory=list)


def pg_bytes(schema: str, tables: tuple[str, ...]) -> int:
    with psycopg.connect(DSN, autocommit=True) as conn:
        row = conn.execute(
            """SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = %s AND c.relkind = 'r' AND c.relname = ANY(%s)""",
            (schema, list(tables)),
        ).fetchone()
    return int(row[0]) if row else 0


def pg_breakdown(schema: str) -> dict[str, int]:
    """Stored bytes (the data columns, before TOAST compression) of our tables, the root's rows apart from the subgraphs'."""
    out: dict[str, int] = {}
    with psycopg.connect(DSN, autocommit=True) as conn:
        for table, column in (("checkpoints", "checkpoint"), ("blobs", "data"), ("writes", "data")):
            q = sql.SQL("SELECT checkpoint_ns = '', coalesce(sum(octet_length({})), 0)::bigint FROM {}.{} GROUP BY 1").format(
                sql.Identifier(column), sql.Identifier(schema), sql.Identifier(table)
            )
            for root, n in conn.execute(q).fetchall():
                out[f"{table} ({'root' if root else 'subgraphs'})"] = int(n)
    return out


def drop_schema(schema: str) -> None:
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def ours_pg(delta_fanout: int | None = 32, graph: str = "chat") -> Callable[[str], Store]:
    def open_(name: str) -> Store:
        from engine import END, START, StateGraph, add_messages
        from engine.checkpoint.postgres import PostgresSaver

        # LangChain's messages are on the serializer's allowlist: nothing to register.
        kw: dict[str, Any] = {} if delta_fanout == 32 else {"delta_fanout": delta_fanout}
        saver = PostgresSaver.from_dsn(DSN, schema=name, **kw)
        compiled = build(StateGraph, START, END, add_messages, graph).compile(checkpointer=saver)

        def close() -> None:
            saver.close()
            drop_schema(name)

        return Store(saver, compiled, lambda: pg_bytes(name, OURS_TABLES), close, breakdown=lambda: pg_breakdown(name))

    return open_


def langgraph_on_ours_pg(graph: str = "chat") -> Callable[[str], Store]:
    """Real LangGraph's graph, compiled with graphwire's PostgresSaver."""

    def open_(name: str) -> Store:
        from langgraph.graph import END, START, StateGraph
        from langgraph.graph.message import add_messages

        from engine.checkpoint.postgres import PostgresSaver

        saver = PostgresSaver.from_dsn(DSN, schema=name)
        compiled = build(StateGraph, START, END, add_messages, graph).compile(checkpointer=saver)

        def close() -> None:
            saver.close()
            drop_schema(name)

        return Store(saver, compiled, lambda: pg_bytes(name, OURS_TABLES), close, breakdown=lambda: pg_breakdown(name))

    return open_


def ours_sqlite(tmpdir: str) -> Callable[[str], Store]:
    def open_(name: str) -> Store:
        from engine import END, START, StateGraph, add_messages
        from engine.checkpoint import SqliteSaver

        path = Path(tmpdir) / f"{name}.db"
        saver = SqliteSaver(path)
        graph = build(StateGraph, START, END, add_messages).compile(checkpointer=saver)

        def size() -> int:
            saver._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return sum(p.stat().st_size for p in path.parent.glob(f"{name}.db*"))

        return Store(saver, graph, size, saver.close)

    return open_


def langgraph_pg(delta: bool, graph: str = "chat") -> Callable[[str], Store]:
    def open_(name: str) -> Store:
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.graph import END, START, StateGraph
        from langgraph.graph.message import add_messages
        from psycopg.rows import dict_row

        with psycopg.connect(DSN, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        conn = psycopg.connect(
            make_conninfo(DSN, options=f"-csearch_path={name}"), autocommit=True, prepare_threshold=0,
            row_factory=dict_row,
        )  # fmt: skip
        saver = PostgresSaver(conn)
        saver.setup()
        if delta:
            from langgraph.channels.delta import DeltaChannel
            from langgraph.graph.message import _messages_delta_reducer

            reducer: Any = DeltaChannel(_messages_delta_reducer)
        else:
            reducer = add_messages
        compiled = build(StateGraph, START, END, reducer, graph).compile(checkpointer=saver)

        def close() -> None:
            conn.close()
            drop_schema(name)

        return Store(saver, compiled, lambda: pg_bytes(name, LG_TABLES), close)

    return open_


# -- running -------------------------------------------------------------------------------
@dataclass
class Result:
    bytes: int | None = None
    baseline: int = 0
    get_state_ms: float | None = None
    seconds: float = 0.0
    error: str = ""
    breakdown: dict[str, int] | None = None


def run(config: Config, turns: int, keep_open: bool, verbose: bool) -> tuple[Result, Store | None]:
    """Run the chat on fresh storage and measure its bytes; return the store too when ``keep_open``."""
    name = f"gwbench_{config.name.replace(' ', '_').replace(',', '').replace('+', '_').lower()}_{turns}_{uuid.uuid4().hex[:6]}"
    store: Store | None = None
    handed_over = False
    try:
        store = config.open(name)
        baseline = store.size()
        thread = {"configurable": {"thread_id": THREAD}}
        t0 = time.perf_counter()
        for turn in range(turns):
            store.graph.invoke({"messages": [user_message(turn)]}, thread)
        seconds = time.perf_counter() - t0
        state = store.graph.get_state(thread)
        msgs = state.values["messages"]
        want = [m for t in range(turns) for m in (user_message(t), assistant_message(t))]
        if [_id_content(m) for m in msgs] != [_id_content(m) for m in want] or state.values["turns"] != turns:
            raise AssertionError(f"wrong final state: {len(msgs)} messages, turns={state.values.get('turns')}")
        history = list(store.graph.get_state_history(thread))
        if len(history) != 4 * turns or len(history[-2].values.get("messages", [])) != 1:
            raise AssertionError(f"wrong history: {len(history)} versions")
        result = Result(bytes=store.size(), baseline=baseline, seconds=seconds, breakdown=store.breakdown() if store.breakdown else None)
        if keep_open:
            handed_over = True
            return result, store
        return result, None
    except Exception as exc:
        if verbose:
            traceback.print_exc()
        return Result(error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:100] if str(exc) else ''}"), None
    finally:
        if store is None:
            drop_schema(name)  # opening failed half-way
        elif not handed_over:
            close_quietly(store)


def close_quietly(store: Store) -> None:
    try:
        store.close()
    except Exception:  # noqa: BLE001, S110 - a benchmark's cleanup
        pass


def measure_get_state(stores: dict[str, Store], results: dict[str, Result]) -> None:
    """Median ``get_state`` latency of each store's thread, measured round-robin.

    Round-robin, after every thread is written: each configuration sees the
    same machine (the database's background work after a burst of writes,
    the CPU's state), which timing them one after the other would not give.
    """
    gc.collect()  # a big live heap makes every GC pass slower: time without the runs' garbage
    thread = {"configurable": {"thread_id": THREAD}}
    times: dict[str, list[float]] = {name: [] for name in stores}
    for rep in range(3 + GET_STATE_REPS):
        for name, store in stores.items():
            t = time.perf_counter()
            store.graph.get_state(thread)
            if rep >= 3:  # the first rounds warm up
                times[name].append(time.perf_counter() - t)
    for name, ts in times.items():
        results[name].get_state_ms = statistics.median(ts) * 1e3


def slope(points: list[tuple[float, float]]) -> float | None:
    pts = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return "error"
    if n >= 1 << 20:
        return f"{n / (1 << 20):,.2f} MiB"
    return f"{n / 1024:,.1f} KiB"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turns", default="10,50,200", help="comma list of T (default 10,50,200)")
    p.add_argument("--only", default="", help="comma list of column names to run (default: all)")
    p.add_argument("--messages", choices=("langchain", "dicts"), default="langchain",
                   help="message objects: LangChain's in both engines (default), or plain dicts")  # fmt: skip
    p.add_argument("--graph", default="chat,supervisor",
                   help="comma list of graphs: chat, supervisor (default both; see GRAPHS)")  # fmt: skip
    p.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of failing cells")
    args = p.parse_args(argv)
    turns = sorted({int(t) for t in args.turns.split(",") if t.strip()})
    global MESSAGES
    MESSAGES = args.messages

    try:
        import langchain_core  # noqa: F401
    except ImportError:
        print("langchain-core is needed for the messages (it comes with langgraph): pip install -r bench/requirements.txt")
        return 1
    try:
        import langgraph.checkpoint.postgres  # noqa: F401

        have_lg = True
    except ImportError as exc:
        have_lg = False
        print(f"LangGraph's PostgresSaver is not installed ({exc}): its columns read n/a")

    with tempfile.TemporaryDirectory(prefix="gw-storage-") as tmpdir:
        tables = {
            "chat": [
                Config("ours PG", ours_pg()),
                Config("ours PG, no deltas", ours_pg(None)),
                Config("ours SQLite", ours_sqlite(tmpdir)),
                Config("LG on ours PG", langgraph_on_ours_pg()),
                Config("LG PG", langgraph_pg(False)),
                Config("LG PG+Delta", langgraph_pg(True)),
            ],
            "supervisor": [
                Config("ours PG", ours_pg(graph="supervisor")),
                Config("ours PG, stable agent", ours_pg(graph="supervisor, stable agent")),
                Config("LG PG", langgraph_pg(False, "supervisor")),
                Config("LG PG+Delta", langgraph_pg(True, "supervisor")),
            ],
        }
        graphs = [g.strip() for g in args.graph.split(",") if g.strip()]
        if unknown := [g for g in graphs if g not in tables]:
            p.error(f"--graph: unknown {unknown} (known: {', '.join(tables)})")
        versions = _versions()
        print(f"python {sys.version.split()[0]}; PostgreSQL at {DSN}; {versions}")
        print(f"messages: {MESSAGES}" + (" (LangGraph turns them into LangChain objects)" if MESSAGES == "dicts" else
              " (the same LangChain objects in both engines)"))  # fmt: skip
        status = 0
        for graph in graphs:
            configs = tables[graph]
            if args.only:
                wanted = {s.strip() for s in args.only.split(",")}
                configs = [c for c in configs if c.name in wanted]
            if not have_lg:
                configs = [c for c in configs if not c.name.startswith("LG")]
            print("\n" + GRAPHS[graph] + "\n")
            status |= run_table(graph, configs, turns, args.verbose)
        return status


GRAPHS = {
    "chat": "chat: each turn a ~200 B user message in, model appends a ~500 B reply, post bumps a counter "
    "(4 versions per turn: input, START, model, post)",
    "supervisor": "supervisor with one agent: each turn a ~200 B user message in, supervisor bumps a counter, "
    "the agent subgraph's model appends a ~500 B reply (4 versions of the parent per turn, and 3 of the agent: "
    "under a namespace per invocation, or with checkpointer=True under one, 'stable agent')",
}


def run_table(graph: str, configs: list[Config], turns: list[int], verbose: bool) -> int:
    results: dict[tuple[str, int], Result] = {}
    open_stores: dict[str, Store] = {}
    try:
        for t in turns:
            for c in configs:
                result, store = run(c, t, keep_open=(t == turns[-1]), verbose=verbose)
                results[(c.name, t)] = result
                if store is not None:
                    open_stores[c.name] = store
        measure_get_state(open_stores, {name: results[(name, turns[-1])] for name in open_stores})
    finally:
        for store in open_stores.values():
            close_quietly(store)
    return report(configs, turns, results, graph)


def report(configs: list[Config], turns: list[int], results: dict[tuple[str, int], Result], graph: str = "chat") -> int:
    names = [c.name for c in configs]
    width = max(14, *(len(n) + 2 for n in names))
    print("bytes on disk (the saver's tables: heap + TOAST + indexes)")
    print("T".ljust(8) + "".join(n.rjust(width) for n in names))
    for t in turns:
        print(str(t).ljust(8) + "".join(fmt_bytes(results[(n, t)].bytes).rjust(width) for n in names))
    raw: dict[str, float | None] = {}
    net: dict[str, float | None] = {}
    for n in names:
        ok = [(t, results[(n, t)]) for t in turns if results[(n, t)].bytes is not None]
        raw[n] = slope([(t, r.bytes) for t, r in ok])  # type: ignore[misc]
        net[n] = slope([(t, r.bytes - r.baseline) for t, r in ok])  # type: ignore[operator]
    print("exponent".ljust(8) + "".join((f"{raw[n]:.2f}" if raw[n] is not None else "n/a").rjust(width) for n in names)
          + "   (log-log slope of bytes over T)")  # fmt: skip
    print("net exp".ljust(8) + "".join((f"{net[n]:.2f}" if net[n] is not None else "n/a").rjust(width) for n in names)
          + "   (the same, less the empty tables' size)")  # fmt: skip
    last = turns[-1]
    print(f"get_state at T={last}, median of {GET_STATE_REPS}, measured round-robin (ms)")
    print("".ljust(8) + "".join(
        (f"{results[(n, last)].get_state_ms:.2f}" if results[(n, last)].get_state_ms is not None else "n/a").rjust(width)
        for n in names))  # fmt: skip
    print(f"seconds to run the {last} turns")
    print("".ljust(8) + "".join(
        (f"{results[(n, last)].seconds:.2f}" if results[(n, last)].bytes is not None else "n/a").rjust(width)
        for n in names))  # fmt: skip
    errors = [f"{n} T={t}: {r.error}" for (n, t), r in results.items() if r.error]
    for e in errors:
        print(f"  error: {e}")

    if graph == "supervisor":
        print("\ntargets (issue 17)")
        e_raw, e_net = raw.get("ours PG"), net.get("ours PG")
        verdict = "n/a  " if e_net is None else ("holds" if e_net <= 1.1 else "FAILS")
        detail = f"net {e_net:.2f}, raw {e_raw:.2f}" if e_net is not None and e_raw is not None else "not measured"
        print(f"  {verdict}  growth exponent of ours PG (agent per invocation) <= 1.1: {detail}")
        # Where the bytes go, at each T: what grows with the square of T shows as a share that keeps rising.
        for n in names:
            if not all(results[(n, t)].breakdown for t in turns):
                continue
            print(f"\nwhere {n}'s bytes are (data columns, before compression), per T")
            parts = list(results[(n, turns[-1])].breakdown or {})
            print("".ljust(26) + "".join(f"T={t}".rjust(12) for t in turns))
            for part in parts:
                print(part.ljust(26) + "".join(fmt_bytes((results[(n, t)].breakdown or {}).get(part, 0)).rjust(12) for t in turns))
        return 1 if errors else 0

    print("\ntargets (issue 4)")
    ours = results.get(("ours PG", last))
    lg = results.get(("LG PG", last))
    lgd = results.get(("LG PG+Delta", last))

    def check(label: str, holds: bool | None, detail: str) -> None:
        verdict = "n/a  " if holds is None else ("holds" if holds else "FAILS")
        print(f"  {verdict}  {label}: {detail}")

    if ours and ours.bytes is not None and lg and lg.bytes is not None:
        check(f"ours PG <= 1/10 of LG PG at T={last}", ours.bytes * 10 <= lg.bytes,
              f"{fmt_bytes(ours.bytes)} vs {fmt_bytes(lg.bytes)} ({lg.bytes / ours.bytes:.1f}x smaller)")  # fmt: skip
    else:
        check(f"ours PG <= 1/10 of LG PG at T={last}", None, "not measured")
    if ours and ours.bytes is not None and lgd and lgd.bytes is not None:
        check(f"ours PG <= LG PG+Delta at T={last}", ours.bytes <= lgd.bytes,
              f"{fmt_bytes(ours.bytes)} vs {fmt_bytes(lgd.bytes)} ({lgd.bytes / ours.bytes:.2f}x)")  # fmt: skip
    else:
        check(f"ours PG <= LG PG+Delta at T={last}", None, "not measured")
    on_ours = results.get(("LG on ours PG", last))
    if on_ours and on_ours.bytes is not None and lg and lg.bytes is not None:
        check(f"LG on ours PG <= 1/20 of LG PG at T={last} (issue 31)", on_ours.bytes * 20 <= lg.bytes,
              f"{fmt_bytes(on_ours.bytes)} vs {fmt_bytes(lg.bytes)} ({lg.bytes / on_ours.bytes:.1f}x smaller)")  # fmt: skip
    else:
        check(f"LG on ours PG <= 1/20 of LG PG at T={last} (issue 31)", None, "not measured")
    lo_raw, lo_net = raw.get("LG on ours PG"), net.get("LG on ours PG")
    check("growth exponent of LG on ours PG <= 1.1 (issue 31)", None if lo_net is None else lo_net <= 1.1,
          f"net {lo_net:.2f}, raw {lo_raw:.2f}" if lo_net is not None and lo_raw is not None else "not measured")  # fmt: skip
    e_raw, e_net = raw.get("ours PG"), net.get("ours PG")
    check("growth exponent of ours PG <= 1.1", None if e_net is None else e_net <= 1.1,
          f"net {e_net:.2f}, raw {e_raw:.2f}" if e_net is not None and e_raw is not None else "not measured")  # fmt: skip
    if ours and ours.get_state_ms is not None and lg and lg.get_state_ms is not None:
        check(f"get_state at T={last}: ours PG no slower than LG PG", ours.get_state_ms <= lg.get_state_ms,
              f"{ours.get_state_ms:.2f} ms vs {lg.get_state_ms:.2f} ms")  # fmt: skip
    else:
        check(f"get_state at T={last}: ours PG no slower than LG PG", None, "not measured")
    return 1 if errors else 0


def _versions() -> str:
    import importlib.metadata as md

    out = []
    for pkg in ("langgraph", "langgraph-checkpoint-postgres", "psycopg"):
        try:
            out.append(f"{pkg} {md.version(pkg)}")
        except Exception:
            out.append(f"{pkg} n/a")
    with psycopg.connect(DSN) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    out.append(f"PostgreSQL {row[0] if row else '?'}")
    return ", ".join(out)


if __name__ == "__main__":
    sys.exit(main())
