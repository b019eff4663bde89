"""Engine overhead per superstep: graphwire's engine next to LangGraph.

Builds the same graphs with both engines through one factory that takes a
"module set" (StateGraph, START, END and the savers of one engine), runs each
with no checkpointer, the in-memory saver, the SQLite saver and the
PostgreSQL saver (ours vs LangGraph's ``langgraph-checkpoint-postgres``, each
cell in a fresh schema of the server at ``GRAPHWIRE_BENCH_PG_DSN``, default
the local one; skipped when unreachable), and prints
the time of ``invoke`` (wall clock, or the process's CPU time with ``--clock cpu``) divided by the number of supersteps the graph
runs: the median over several repetitions after a warm-up (the two engines
taking turns invoke by invoke), a new thread id
for every invoke. The nodes do no work, so the figure is what the engine
itself costs per step (planning, applying writes, saving a version).

Rows:

* ``chain1`` / ``chain10`` / ``chain100``: START -> n0 -> ... -> END, each
  node returns ``{"n": state["n"] + 1}``; one superstep per node.
* ``agent20``: an agent/tools loop over LangChain messages, as real agents
  keep them. ``agent`` appends an AIMessage with a tool call to ``messages``
  (``Annotated[list, add_messages]``, each engine's own) and a conditional
  edge routes to ``tools`` or END; ``tools`` appends the ToolMessage. It ends
  after 20 rounds, i.e. agent runs 21 times and tools 20 times: 41
  supersteps. Both engines store the same message objects.
* ``agent20_dicts``: the same loop over plain dict messages merged by
  ``operator.add`` (the engine without the langchain extra).

A second table, "LangGraph on graphwire's savers", runs LangGraph itself
(real ``langgraph``: this script never installs the import swap) compiled
with our savers (``engine.checkpoint``'s memory, SQLite and PostgreSQL ones,
LangGraph checkpointers once LangGraph is imported) beside the same LangGraph
on its own savers: the same rows, the two taking turns invoke by invoke.

Each run's final state is checked, so an engine that returns early or wrong
shows as an error rather than as a fast figure. This prints figures; it
asserts no timings.

Usage::

    python bench/engine_overhead.py            # full run, both engines
    python bench/engine_overhead.py --quick    # smoke run, a few seconds
    python bench/engine_overhead.py --only langgraph --rows chain10,agent20
    python bench/engine_overhead.py --only ours --tracing   # + tracing off vs on
    python bench/engine_overhead.py --only ours --json-safe # ours with the serializer a server sets
    python bench/engine_overhead.py --only lg-savers         # LangGraph on its own savers vs on ours

LangGraph is optional: when it is not installed its column reads ``n/a``.
Install it with ``pip install -r bench/requirements.txt``.
"""


import argparse
import gc
import operator
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, TypedDict

# The engine lives at the repository root. Running ``python bench/x.py`` puts
# bench/ on sys.path, not the root; with PYTHONPATH=<root> it is there
# already and nothing changes. Otherwise the root goes right after the
# PYTHONPATH entries: an explicit PYTHONPATH still wins, and an unrelated
# installed package called ``engine`` in site-packages does not.
_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    # after the last PYTHONPATH entry wherever it is (a script may have put its own folder first)
    _env = {Path(p).resolve() for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    _last = max((i for i, p in enumerate(sys.path) if p and Path(p).resolve() in _env), default=0)
    sys.path.insert(_last + 1, _ROOT)


# --------------------------------------------------------------------------
# State schemas (shared by both engines: plain typing only)


class CounterState(TypedDict):
    n: int


class AgentState(TypedDict):
    messages: Annotated[list, operator.add]


AGENT_ROUNDS = 20


# --------------------------------------------------------------------------
# Module sets


@dataclass(frozen=True)
class ModuleSet:
    """What one engine provides to build and run the bench graphs."""

    name: str
    StateGraph: Any
    START: Any
    END: Any
    make_memory: Callable[[], Any]
    make_sqlite: Callable[[str], tuple[Any, Callable[[], None]]]
    """Given a file path, returns (saver, close)."""
    make_postgres: Callable[[str], tuple[Any, Callable[[], None]]] | None = None
    """Given a fresh schema name, returns (saver, close); close also drops the schema."""
    add_messages: Any = None
    """The engine's message reducer."""


def load_langgraph() -> tuple[ModuleSet | None, str]:
    try:
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import END, START, StateGraph, add_messages
    except ImportError as exc:
        return None, f"langgraph not installed ({exc})"
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver
    except ImportError:
        SqliteSaver = None

    def make_sqlite(path: str) -> tuple[Any, Callable[[], None]]:
        if SqliteSaver is None:
            raise RuntimeError("langgraph-checkpoint-sqlite not installed")
        conn = sqlite3.connect(path, check_same_thread=False)
        return SqliteSaver(conn), conn.close

    def make_postgres(schema: str) -> tuple[Any, Callable[[], None]]:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.conninfo import make_conninfo
        from psycopg.rows import dict_row

        _pg_exec(f'CREATE SCHEMA "{schema}"')
        # LangGraph's own recommended connection settings; its tables go in the fresh schema.
        options = " ".join(o for o in (f"-csearch_path={schema}", PG_OPTIONS) if o)
        conn = psycopg.connect(make_conninfo(PG_DSN, options=options), autocommit=True,
                               prepare_threshold=0, row_factory=dict_row)  # fmt: skip
        saver = PostgresSaver(conn)
        saver.setup()

        def close() -> None:
            conn.close()
            _pg_exec(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

        return saver, close

    try:
        import importlib.metadata as md

        version = md.version("langgraph")
    except Exception:
        version = "?"
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
    except ImportError:
        postgres = None
    else:
        postgres = make_postgres
    return ModuleSet("langgraph", StateGraph, START, END, InMemorySaver, make_sqlite, postgres, add_messages), version


def load_ours() -> tuple[ModuleSet | None, str]:
    try:
        from engine import END, START, StateGraph, add_messages
        from engine.checkpoint import InMemorySaver, SqliteSaver
    except Exception as exc:  # the engine may be half-written: any failure
        return None, f"engine not importable ({type(exc).__name__}: {exc})"

    def make_sqlite(path: str) -> tuple[Any, Callable[[], None]]:
        # Same call as LangGraph's: a connection. Ours also accepts a path.
        conn = sqlite3.connect(path, check_same_thread=False)
        saver = SqliteSaver(conn)

        def close() -> None:
            for name in ("close",):
                fn = getattr(saver, name, None)
                if callable(fn):
                    try:
                        fn()
                    except Exception:
                        pass
            conn.close()

        return saver, close

    def make_postgres(schema: str) -> tuple[Any, Callable[[], None]]:
        from engine.checkpoint.postgres import PostgresSaver

        from psycopg.conninfo import make_conninfo

        saver = PostgresSaver.from_dsn(make_conninfo(PG_DSN, options=PG_OPTIONS) if PG_OPTIONS else PG_DSN, schema=schema)

        def close() -> None:
            saver.close()
            _pg_exec(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

        return saver, close

    import engine

    where = getattr(engine, "__file__", None) or next(iter(getattr(engine, "__path__", [])), "?")
    return ModuleSet("ours", StateGraph, START, END, InMemorySaver, make_sqlite, make_postgres, add_messages), f"engine from {where}"


def langgraph_on_ours(lg: ModuleSet, ours: ModuleSet) -> ModuleSet:
    """LangGraph itself (its StateGraph, START, END, add_messages) with graphwire's savers.

    Our savers are LangGraph checkpointers once LangGraph is imported: building
    one adds LangGraph's ``BaseCheckpointSaver`` to our base's bases
    (``engine.checkpoint._langgraph.adopt_langgraph_base``). This script never
    installs the import swap, so ``langgraph`` here is LangGraph itself.
    """
    return ModuleSet(LG_ON_OURS, lg.StateGraph, lg.START, lg.END, ours.make_memory, ours.make_sqlite,
                     ours.make_postgres, lg.add_messages)  # fmt: skip


LG_ON_OURS = "langgraph_on_ours"
#: The key of LangGraph raced against itself (--only lg-null).
LG_AGAIN = "langgraph_again"
# Module sets whose savers are ours (--json-safe sets their serializer).
OUR_SAVERS = ("ours", LG_ON_OURS)


# PostgreSQL for the "postgres" saver column: each cell gets a fresh schema, dropped after.
PG_DSN = os.environ.get("GRAPHWIRE_BENCH_PG_DSN") or os.environ.get(
    "GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test"
)
# Server settings for both engines' connections (--pg-options), e.g.
# "-c synchronous_commit=off" to see the engines without the disk's flush per commit.
PG_OPTIONS = ""
# What a run's time is measured by (--clock): the wall clock, or the process's
# CPU time, which a machine shared with other work inflates far less (it leaves
# out waits on the disk and on the database server, so it is for comparing
# what the engines themselves cost, not for the saver columns' real latency).
# thread: the invoking thread's CPU time alone (our engine runs a run's loop there), without the
# span processor's export thread or worker threads: for --tracing's columns, not for engines side by side.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time, "thread": time.thread_time}
CLOCK = time.perf_counter
# --json-safe: our savers refuse what JSON cannot carry, as a server's do (engine/serde/_wire.py).
JSON_SAFE = False


def _pg_exec(statement: str) -> None:
    import psycopg

    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(statement)


def pg_unreachable() -> str | None:
    """Why the PostgreSQL column cannot run, or None."""
    try:
        _pg_exec("SELECT 1")
    except Exception as exc:  # any failure: no server, no driver
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


# --------------------------------------------------------------------------
# Graph factories: the same code builds both engines' graphs


def _inc(state: CounterState) -> dict:
    return {"n": state["n"] + 1}


def build_chain(ms: ModuleSet, length: int):
    g = ms.StateGraph(CounterState)
    names = [f"n{i}" for i in range(length)]
    for name in names:
        g.add_node(name, _inc)
    g.add_edge(ms.START, names[0])
    for a, b in zip(names, names[1:]):
        g.add_edge(a, b)
    g.add_edge(names[-1], ms.END)
    return g


def _agent(state: AgentState) -> dict:
    return {"messages": [{"role": "assistant", "content": "call tool"}]}


def _tools(state: AgentState) -> dict:
    return {"messages": [{"role": "tool", "content": "result"}]}


def build_agent(ms: ModuleSet, rounds: int = AGENT_ROUNDS, agent: Callable[[AgentState], Any] = _agent):
    end = ms.END

    def route(state: AgentState) -> str:
        done = sum(1 for m in state["messages"] if m["role"] == "tool")
        return "tools" if done < rounds else end

    g = ms.StateGraph(AgentState)
    g.add_node("agent", agent)
    g.add_node("tools", _tools)
    g.add_edge(ms.START, "agent")
    g.add_conditional_edges("agent", route, {"tools": "tools", end: end})
    g.add_edge("tools", "agent")
    return g


def build_agent_lc(ms: ModuleSet, rounds: int = AGENT_ROUNDS):
    """The agent loop over LangChain messages, merged by the engine's own add_messages."""
    from langchain_core.messages import AIMessage, ToolMessage

    state = TypedDict("LCAgentState", {"messages": Annotated[list, ms.add_messages]})  # type: ignore[misc]
    end = ms.END

    def agent(s: Any) -> dict:
        n = len(s["messages"])
        return {"messages": [AIMessage("call tool", tool_calls=[{"name": "lookup", "args": {"n": n}, "id": f"call-{n}"}])]}

    def tools(s: Any) -> dict:
        call = s["messages"][-1].tool_calls[0]
        return {"messages": [ToolMessage("result", tool_call_id=call["id"], name=call["name"])]}

    def route(s: Any) -> str:
        done = sum(1 for m in s["messages"] if isinstance(m, ToolMessage))
        return "tools" if done < rounds else end

    g = ms.StateGraph(state)
    g.add_node("agent", agent)
    g.add_node("tools", tools)
    g.add_edge(ms.START, "agent")
    g.add_conditional_edges("agent", route, {"tools": "tools", end: end})
    g.add_edge("tools", "agent")
    return g


def _lc_input() -> dict:
    from langchain_core.messages import HumanMessage

    return {"messages": [HumanMessage("hi")]}


@dataclass(frozen=True)
class Row:
    name: str
    build: Callable[[ModuleSet], Any]
    make_input: Callable[[], dict]
    steps: int
    check: Callable[[Any], bool]


ROWS: dict[str, Row] = {
    f"chain{k}": Row(
        f"chain{k}",
        (lambda ms, k=k: build_chain(ms, k)),
        lambda: {"n": 0},
        k,
        (lambda out, k=k: isinstance(out, dict) and out.get("n") == k),
    )
    for k in (1, 10, 100)
}
ROWS["agent20"] = Row(
    "agent20",
    build_agent_lc,
    _lc_input,
    2 * AGENT_ROUNDS + 1,
    lambda out: isinstance(out, dict) and len(out.get("messages", ())) == 2 * AGENT_ROUNDS + 2
    and type(out["messages"][-1]).__name__ == "AIMessage",
)
ROWS["agent20_dicts"] = Row(
    "agent20_dicts",
    build_agent,
    lambda: {"messages": [{"role": "user", "content": "hi"}]},
    2 * AGENT_ROUNDS + 1,
    lambda out: isinstance(out, dict) and len(out.get("messages", ())) == 2 * AGENT_ROUNDS + 2,
)

SAVERS = ("none", "memory", "sqlite", "postgres")


# --------------------------------------------------------------------------
# Measuring


@dataclass
class Cell:
    us_per_step: float | None = None
    note: str = ""
    runs: int = 0


def open_cell(ms: ModuleSet, row: Row, saver_kind: str, tmpdir: str) -> tuple[Callable[[], float], Callable[[], None]]:
    """(run one invoke on a new thread and return its time by CLOCK, close the saver)."""
    close: Callable[[], None] = lambda: None
    if saver_kind == "none":
        saver = None
    elif saver_kind == "memory":
        saver = ms.make_memory()
    elif saver_kind == "postgres":
        if ms.make_postgres is None:
            raise RuntimeError(f"no PostgreSQL saver for {ms.name} (pip install -r bench/requirements.txt)")
        saver, close = ms.make_postgres(f"gwbench_{ms.name}_{row.name}_{uuid.uuid4().hex[:8]}")
    else:
        path = os.path.join(tmpdir, f"{ms.name}-{row.name}-{uuid.uuid4().hex[:8]}.sqlite")
        saver, close = ms.make_sqlite(path)
    if JSON_SAFE and ms.name in OUR_SAVERS and saver is not None:
        saver.serde.json_safe = True  # as graphwire serve sets it
    graph = row.build(ms).compile(checkpointer=saver)
    limit = row.steps + 10  # both engines need > steps (LangGraph: >= k+1 for a k-chain)

    def run_once() -> float:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": limit}
        inp = row.make_input()
        t0 = CLOCK()
        out = graph.invoke(inp, config)
        dt = CLOCK() - t0
        if not row.check(out):
            raise AssertionError(f"unexpected final state: {str(out)[:200]}")
        return dt

    return run_once, close


def error_cell(exc: Exception, verbose: bool) -> Cell:
    """A cell that failed, its note naming the exception (with ``-v``, its traceback printed)."""
    if verbose:
        traceback.print_exc()
    return Cell(None, f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:80] if str(exc) else ''}")


def take_turns(runs: dict[str, Callable[[], float]], steps: int, warmup: int, reps: int,
               min_time: float, verbose: bool) -> dict[str, Cell]:
    """µs per step of each of ``runs`` (name -> one timed invoke), the runs taking turns
    invoke by invoke, so a change in the machine's load while they are measured weighs
    on each alike. A run that fails is reported as an error and the others go on."""
    cells: dict[str, Cell] = {}

    def failed(name: str, exc: Exception) -> None:
        cells[name] = error_cell(exc, verbose)

    live = dict(runs)
    for name, run in list(live.items()):
        try:
            for _ in range(warmup):
                run()
        except Exception as exc:
            failed(name, exc)
            del live[name]
    times: dict[str, list[float]] = {name: [] for name in live}
    # One full collection before timing, none between runs: a forced collection
    # walks the whole heap and leaves the caches cold, which made a one-step
    # run take twice as long (more with LangGraph imported: a bigger heap).
    # A server never collects between requests; garbage is collected as it is
    # made, by whichever run allocates, as in production.
    gc.collect()
    start = time.perf_counter()
    n = 0
    while live and (n < reps or (time.perf_counter() - start < min_time and n < 20 * reps)):
        # The order turns each round (A B, B A, ...): what one run leaves the next (garbage the
        # next collects, caches it evicted) weighs on each alike.
        for name, run in list(live.items())[:: -1 if n % 2 else 1]:
            try:
                times[name].append(run())
            except Exception as exc:
                failed(name, exc)
                del live[name]
        n += 1
    for name in live:
        ts = times[name]
        cells[name] = Cell(statistics.median(ts) / steps * 1e6, f"{len(ts)} reps", len(ts))
    return cells


def measure(ms: ModuleSet, row: Row, saver_kind: str, tmpdir: str, warmup: int, reps: int,
            min_time: float, verbose: bool, modes: dict[str, Callable[[], None]] | None = None) -> dict[str, Cell]:
    """µs per step of ``row`` on ``saver_kind``, per mode (``modes``: name -> switch it on;
    default: one mode, ""). Modes take turns run by run (:func:`take_turns`)."""
    return measure_cells({"": ms}, row, saver_kind, tmpdir, warmup, reps, min_time, verbose, modes)


def measure_cells(impls: dict[str, ModuleSet], row: Row, saver_kind: str, tmpdir: str, warmup: int, reps: int,
                  min_time: float, verbose: bool, modes: dict[str, Callable[[], None]] | None = None
                  ) -> dict[str, Cell]:
    """Like :func:`measure`, for several engines at once: every (engine, mode) takes
    turns with the others, keyed ``engine`` (one mode) or ``mode`` (one engine)."""
    modes = modes or {"": lambda: None}
    closes: list[Callable[[], None]] = []
    runs: dict[str, Callable[[], float]] = {}
    cells: dict[str, Cell] = {}
    try:
        for impl, ms in impls.items():
            try:
                run_once, close = open_cell(ms, row, saver_kind, tmpdir)
            except Exception as exc:
                failed = error_cell(exc, verbose)
                cells.update({impl or mode: failed for mode in modes})
                continue
            closes.append(close)
            for mode, switch in modes.items():
                runs[impl or mode] = lambda s=switch, r=run_once: (s(), r())[1]
        cells.update(take_turns(runs, row.steps, warmup, reps, min_time, verbose))
        return cells
    finally:
        for close in closes:
            try:
                close()
            except Exception:
                pass


def fmt(cell: Cell | None) -> str:
    if cell is None:
        return "n/a"
    if cell.us_per_step is None:
        return "error"
    return f"{cell.us_per_step:,.1f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: 1 warm-up, 3 repetitions")
    p.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                   help="time runs by the wall clock (default), by the process's CPU time (steadier on a busy machine) "
                        "or by the invoking thread's (--tracing: leaves out the span exporter's thread)")
    p.add_argument("--only", choices=("both", "ours", "langgraph", "lg-savers", "lg-null"), default="both",
                   help="both (default): ours vs LangGraph, then LangGraph on its own savers vs on ours; "
                        "lg-savers: that second table alone; lg-null: LangGraph on its own savers against "
                        "itself, the bench's own floor for that table's ratio (1.00 when the bench is fair)")
    p.add_argument("--rows", default=",".join(ROWS), help=f"comma list of {', '.join(ROWS)}")
    p.add_argument("--savers", default=",".join(SAVERS), help=f"comma list of {', '.join(SAVERS)}")
    p.add_argument("--reps", type=int, help="minimum repetitions per cell (default 7, quick 3)")
    p.add_argument("--warmup", type=int, help="warm-up invokes per cell (default 3, quick 1)")
    p.add_argument("--min-time", type=float, help="keep repeating a cell for this many seconds (default 0.5, quick 0)")
    p.add_argument("--pg-options", default="",
                   help='libpq options for both engines\' PostgreSQL connections, e.g. "-c synchronous_commit=off"')
    p.add_argument("--tracing", action="store_true",
                   help="also measure ours with OpenTelemetry tracing on (SDK, in-memory exporter) vs off")
    p.add_argument("--json-safe", action="store_true",
                   help="our savers' serializer refuses what JSON cannot carry, as graphwire serve sets it")
    p.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of failing cells")
    args = p.parse_args(argv)
    global PG_OPTIONS, CLOCK, JSON_SAFE
    PG_OPTIONS = args.pg_options
    CLOCK = CLOCKS[args.clock]
    JSON_SAFE = args.json_safe

    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    savers = [s.strip() for s in args.savers.split(",") if s.strip()]
    for r in rows:
        if r not in ROWS:
            p.error(f"unknown row {r!r}")
    for s in savers:
        if s not in SAVERS:
            p.error(f"unknown saver {s!r}")
    reps = args.reps or (3 if args.quick else 7)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    min_time = args.min_time if args.min_time is not None else (0.0 if args.quick else 0.5)

    impls: dict[str, ModuleSet | None] = {"ours": None, "langgraph": None}
    notes: list[str] = []
    if args.only in ("both", "ours", "lg-savers"):
        impls["ours"], info = load_ours()
        notes.append(f"ours: {info}")
    if args.only in ("both", "langgraph", "lg-savers", "lg-null"):
        impls["langgraph"], info = load_langgraph()
        notes.append(f"langgraph: {info}" if impls["langgraph"] is None else f"langgraph {info}")

    if "postgres" in savers:
        why = pg_unreachable()
        if why is not None:
            savers = [s for s in savers if s != "postgres"]
            notes.append(f"postgres column skipped: {PG_DSN} unreachable ({why})")
        else:
            notes.append(f"postgres: {PG_DSN}, a fresh schema per cell"
                         + (f", options {PG_OPTIONS!r}" if PG_OPTIONS else ", server defaults (a flushed commit per write)"))

    if JSON_SAFE:
        notes.append("ours: json_safe serializer (what graphwire serve sets)")
    print(f"python {sys.version.split()[0]}; reps>={reps}, warm-up {warmup}; "
          f"µs per superstep = median invoke {'wall' if args.clock == 'wall' else 'CPU'} time / supersteps; "
          "the engines take turns invoke by invoke")
    for n in notes:
        print(f"  {n}")

    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gw-bench-") as tmpdir:
        if args.only in ("both", "ours", "langgraph"):
            errors += pair_table(impls, ("ours", "LangGraph", "ours/LangGraph"), rows, savers, tmpdir, warmup, reps, min_time,
                                 args.verbose)  # fmt: skip
        lg, ours = impls["langgraph"], impls["ours"]
        if args.only in ("both", "lg-savers") and lg is not None and ours is not None:
            print()
            print("LangGraph on graphwire's savers: LangGraph itself compiled with its own saver "
                  "and with ours (engine.checkpoint), taking turns invoke by invoke")
            pairs = {LG_ON_OURS: langgraph_on_ours(lg, ours), "langgraph": lg}
            errors += pair_table(pairs, ("LG on ours", "LG on its own", "ours/own"), rows, [s for s in savers if s != "none"],
                                 tmpdir, warmup, reps, min_time, args.verbose)  # fmt: skip
        if args.only == "lg-null" and lg is not None:
            print("LangGraph on its own savers against itself (two cells alike, taking turns): the ratio a "
                  "fair bench gives when nothing differs")
            errors += pair_table({"langgraph": lg, LG_AGAIN: lg}, ("LG on its own", "LG again", "first/second"), rows,
                                 [s for s in savers if s != "none"], tmpdir, warmup, reps, min_time, args.verbose)  # fmt: skip
        if args.tracing and impls["ours"] is not None:
            from _overhead_tracing import tracing_table  # (bench/ is on sys.path: this script's folder)

            errors += tracing_table(sys.modules[__name__], impls["ours"], rows, savers, tmpdir, warmup, reps, min_time,
                                    args.verbose)  # fmt: skip
    for e in errors:
        print(f"  {e}")
    return 1 if errors else 0


def pair_table(impls: dict[str, ModuleSet | None], titles: tuple[str, str, str], rows: list[str], savers: list[str],
               tmpdir: str, warmup: int, reps: int, min_time: float, verbose: bool) -> list[str]:
    """Print a table of two engines' µs per step (``impls``: its first two keys, in that order,
    headed ``titles[:2]``; either may be None, its column then n/a) and their ratio (headed
    ``titles[2]``, the first's over the second's); return the errors."""
    a_key, b_key = impls
    present = {k: ms for k, ms in impls.items() if ms is not None}
    header = ("row", "steps", "saver", f"{titles[0]} µs/step", f"{titles[1]} µs/step", titles[2])
    widths = (9, 5, 8, max(13, len(header[3])), max(18, len(header[4])), max(14, len(header[5])))
    print()
    print("  ".join(h.ljust(w) if i < 3 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))))
    print("  ".join("-" * w for w in widths))
    errors: list[str] = []
    for rname in rows:
        row = ROWS[rname]
        for sk in savers:
            cells: dict[str, Cell] = measure_cells(present, row, sk, tmpdir, warmup, reps, min_time, verbose)
            for impl, c in cells.items():
                if c.us_per_step is None:
                    errors.append(f"{impl} {rname}/{sk}: {c.note}")
            a, b = cells.get(a_key), cells.get(b_key)
            ratio = f"{a.us_per_step / b.us_per_step:.2f}x" if a and b and a.us_per_step and b.us_per_step else "n/a"
            vals = (rname, str(row.steps), sk, fmt(a), fmt(b), ratio)
            print("  ".join(v.ljust(w) if i < 3 else v.rjust(w) for i, (v, w) in enumerate(zip(vals, widths))),
                  flush=True)  # fmt: skip
    return errors


if __name__ == "__main__":
    sys.exit(main())
