"""Invoke over gRPC: runs per second and latency, next to the floor.

Starts a real ``graphwire serve`` (SQLite checkpointer in a temporary
directory) serving a trivial 3-node graph (START → a → b → c → END, each node
adds 1 to ``n``), and, in the same run, a bare grpcio echo server: one unary
method registered with a generic handler (no codegen, no serialization:
bytes in, the same bytes out), on a ``grpc.aio`` server like graphwire's. Both
are separate processes on 127.0.0.1; the callers are asyncio tasks in this
process, on one channel per server.

Rows:

* ``echo``: one unary call carrying the bytes of a real ``InvokeRequest``.
  The floor: what any gRPC call from Python costs here.
* ``invoke (default)``: ``AsyncClient.invoke`` as a chat server calls it
  (the server sends RunStarted and RunFinished, which carry the result),
  timed until its ``RunFinished`` is decoded. A new thread per call.
* ``invoke (all events)``: the same with every event kind streamed (~25
  messages for this graph), as ``stream`` would receive them.
* ``engine in-process``: the same graph compiled in this process on a
  ``SqliteSaver`` file, driven the way the server drives it
  (``aevents`` to the end), one call at a time.
* ``invoke (default, PostgreSQL)`` and ``invoke (all events, PostgreSQL)``:
  the two invoke rows against a second ``graphwire serve`` on a PostgreSQL
  checkpointer (the server of ``--pg``, default
  ``postgresql://root@127.0.0.1:5432/test``; a database of its own, created
  for the bench and dropped at the end), so every run also takes and
  releases the thread's lease. Skipped, saying so, when that server cannot be
  reached. Issue 16's target: at least 500 runs/s with 32 callers on a
  2-core machine.

Each row runs with 1, 8 and 32 concurrent callers (the engine row with 1),
for a bounded number of calls or seconds, whichever ends first, after a
warm-up. p50/p99 are per-call latencies; runs/s is calls / wall time.
``srv CPU us`` is the CPU time (user + system, from ``/proc/<pid>/stat``)
the serving process spent per call during the row: far less sensitive to
other work on the machine than runs/s, which shares two cores with the
callers here and, on PostgreSQL, the database. ``db CPU us`` is the CPU
time PostgreSQL's backends spent per call (the PostgreSQL rows: each backend
connected to the bench's database, by the pids ``pg_stat_activity`` names,
read from ``/proc/<pid>/stat``).

The issue's target: Invoke p50 with 1 caller ≤ 3 × echo p50 (1 caller) +
the in-process engine p50. The script prints whether it holds. It asserts no
timing and exits 0 either way (1 only if something failed to run).

Usage::

    python bench/grpc_throughput.py            # full run (~30 s)
    python bench/grpc_throughput.py --quick    # smoke run (a few seconds)
    python bench/grpc_throughput.py --pg ''    # without the PostgreSQL rows
    python bench/grpc_throughput.py --durable  # only the cost of request_id and CONTINUE (bench/durable_cost.py)
    python bench/grpc_throughput.py --pg-only  # only the PostgreSQL rows
    python bench/grpc_throughput.py --pg-only --callers 1,32  # only those rows' callers
    python bench/grpc_throughput.py --pg-only --workers 1,2  # and with 2 server processes (serve --workers 2)

``srv CPU us`` and ``runs/CPU-s`` count the serving process and its children
(the workers of ``--workers``).
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import os
import platform
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

# The packages live at the repository root; see bench/engine_overhead.py for
# why the root goes right after the PYTHONPATH entries.
_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    _n_env = len([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(min(1 + _n_env, len(sys.path)), _ROOT)

ECHO_METHOD = "/bench.Echo/Echo"
CALLERS = (1, 8, 32)


# -- the graph (the server imports it as bench.grpc_throughput:chain3) ---------------


class ChainState(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]



def _build_chain3() -> Any:
    from engine import END, START, StateGraph

    def step(name: str) -> Callable[[ChainState], dict[str, Any]]:
        def node(state: ChainState) -> dict[str, Any]:
            return {"n": state.get("n", 0) + 1}

        return node

    g = StateGraph(ChainState)
    for name in ("a", "b", "c"):
        g.add_node(name, step(name))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    return g


def chain3() -> Any:
    """The benchmark's graph builder (a zero-argument factory, for ``--graph``)."""
    return _build_chain3()


# -- the echo server (run as a subprocess: ``--serve-echo``) ---------------------------


async def _serve_echo() -> None:
    import grpc

    async def echo(request: bytes, context: Any) -> bytes:
        return request

    handler = grpc.method_handlers_generic_handler("bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"echo listening on 127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(1)


# -- processes ---------------------------------------------------------------------------


@dataclass
class Proc:
    popen: subprocess.Popen[bytes]
    address: str

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            return self.popen.wait()


def _start(cmd: list[str], marker: str, cwd: str, log: Path, keep: list[str] | None = None) -> Proc:
    """Start ``cmd``; read its stdout until ``marker HOST:PORT`` (no sleeps). ``keep``: gets the lines before it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([_ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("GRAPHWIRE_AUTH_TOKEN", None)
    with open(log, "wb") as err:
        popen = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=err)
    assert popen.stdout is not None
    address, seen = read_until(popen, marker, 30, log, str(cmd[2:4]))
    if keep is not None:
        keep.extend(seen)
    return Proc(popen, address)


def read_until(popen: subprocess.Popen[bytes], marker: str, seconds: float, log: Path, name: str) -> tuple[str, list[str]]:
    """Read ``popen``'s stdout until a line starting with ``marker`` (no sleeps): that line's rest, and the
    lines before it. The process is killed if none comes within ``seconds``; its log is in the error."""
    assert popen.stdout is not None
    fd, buf, deadline = popen.stdout.fileno(), b"", time.monotonic() + seconds
    seen: list[str] = []
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            *done, buf = buf.split(b"\n")
            for line in done:
                text = line.decode(errors="replace").strip()
                if text.startswith(marker):
                    return text.removeprefix(marker).strip(), seen
                seen.append(text)
            if time.monotonic() > deadline:
                popen.kill()
                raise RuntimeError(f"{name} did not start in {seconds:g}s:\n{log.read_text(errors='replace')[-3000:]}")
            if sel.select(max(deadline - time.monotonic(), 0)):
                chunk = os.read(fd, 4096)
                if not chunk:
                    popen.wait()
                    raise RuntimeError(f"{name} exited with {popen.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
                buf += chunk


async def _wait_serving(address: str) -> None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(address) as ch:
        resp = await health_pb2_grpc.HealthStub(ch).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=30, wait_for_ready=True
        )
        if resp.status != health_pb2.HealthCheckResponse.SERVING:
            raise RuntimeError(f"graphwire at {address} is not SERVING: {resp.status}")


# -- measuring ---------------------------------------------------------------------------


@dataclass
class Row:
    what: str
    callers: int
    calls: int
    seconds: float
    latencies_ns: list[int]
    server_cpu_s: float | None = None  # the serving process's CPU seconds during the row
    db_cpu_s: float | None = None  # PostgreSQL's backends' CPU seconds during the row (their database's)

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        """The q-quantile latency in ms (nearest rank)."""
        xs = sorted(self.latencies_ns)
        return xs[min(len(xs) - 1, max(0, round(q * len(xs)) - 1))] / 1e6

    @property
    def cpu_us(self) -> str:
        """The serving process's CPU µs per call ("-": no serving process, or no /proc)."""
        if self.server_cpu_s is None or not self.calls:
            return "-"
        return f"{self.server_cpu_s * 1e6 / self.calls:.0f}"

    @property
    def db_cpu_us(self) -> str:
        """PostgreSQL's backends' CPU µs per call ("-": not a PostgreSQL row)."""
        if self.db_cpu_s is None or not self.calls:
            return "-"
        return f"{self.db_cpu_s * 1e6 / self.calls:.0f}"

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies_ns) / 1e6


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` and its children (``--workers``) so far (None without /proc)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return None
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(_cpu_seconds(c) or 0.0 for c in children)


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` alone (0.0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Backends:
    """PostgreSQL's backends serving one database: their CPU, read from /proc by the pids pg_stat_activity names."""

    def __init__(self, dsn: str, database: str) -> None:
        self.dsn, self.database = dsn, database

    def snapshot(self) -> dict[int, float]:
        """Each backend's CPU seconds so far, by pid."""
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
            pids = [r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,))]
        return {pid: _proc_cpu(pid) for pid in pids}

    @staticmethod
    def spent(before: dict[int, float], after: dict[int, float]) -> float:
        """CPU seconds the backends spent between two snapshots (one that started since counts whole)."""
        return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


async def measure(
    what: str,
    call: Callable[[], Awaitable[Any]],
    callers: int,
    max_calls: int,
    max_seconds: float,
    warmup: int,
    *,
    server: Proc | None = None,
    backends: Backends | None = None,
) -> Row:
    """Run ``call`` from ``callers`` concurrent tasks until ``max_calls`` or ``max_seconds``
    (``server``: the process serving the calls, whose CPU time is read before and after)."""
    for _ in range(warmup):
        await call()
    latencies: list[int] = []
    pid = server.popen.pid if server is not None else None
    db_before = backends.snapshot() if backends is not None else None
    cpu_before = _cpu_seconds(pid)
    started = time.perf_counter()
    stop_at = started + max_seconds
    budget = [max_calls]

    async def caller() -> None:
        while budget[0] > 0 and time.perf_counter() < stop_at:
            budget[0] -= 1
            t0 = time.perf_counter_ns()
            await call()
            latencies.append(time.perf_counter_ns() - t0)

    await asyncio.gather(*(caller() for _ in range(callers)))
    elapsed = time.perf_counter() - started
    cpu_after = _cpu_seconds(pid)
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    db = Backends.spent(db_before, backends.snapshot()) if backends is not None and db_before is not None else None
    return Row(what, callers, len(latencies), elapsed, latencies, cpu, db)


async def run_bench(args: argparse.Namespace, tmp: str) -> tuple[list[Row], dict[str, Any]]:
    import grpc
    from graphwire import AsyncClient, EventKind, FinishReason

    all_kinds = list(EventKind)

    from engine.checkpoint import SqliteSaver

    rows: list[Row] = []
    info: dict[str, Any] = {}
    invoke_calls, echo_calls, seconds = args.calls, args.calls * 4, args.seconds
    warmup = 20 if args.quick else 100
    if args.pg_only:
        return await _pg_rows(args, tmp, info, warmup), info

    # In-process engine first, alone on the machine.
    saver = SqliteSaver(str(Path(tmp) / "in-process.db"))
    graph = chain3().compile(checkpointer=saver, name="chain3")

    async def engine_call() -> None:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        last = None
        async for e in graph.aevents({"n": 0}, config):
            last = e
        assert last is not None and last.reason == "END" and last.values["n"] == 3, last

    rows.append(await measure("engine in-process (aevents, SQLite)", engine_call, 1, invoke_calls, seconds, warmup))
    await saver.aclose()

    server = _start(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer",
         str(Path(tmp) / "server.db"), "--graph", "chain3=bench.grpc_throughput:chain3", "--log-level", "WARNING"],
        "graphwire listening on", tmp, Path(tmp) / "server.log",
    )  # fmt: skip
    echo = _start([sys.executable, __file__, "--serve-echo"], "echo listening on", tmp, Path(tmp) / "echo.log")
    try:
        await _wait_serving(server.address)
        async with AsyncClient(server.address) as client, grpc.aio.insecure_channel(echo.address) as echo_channel:
            echo_rpc = echo_channel.unary_unary(ECHO_METHOD)
            from graphwire._requests import invoke as invoke_request

            request_bytes = invoke_request(
                "chain3", uuid.uuid4().hex, {"n": 0}, checkpoint_id=None, event_kinds=None, enqueue=False, config=None
            ).SerializeToString()

            async def echo_call() -> None:
                reply = await echo_rpc(request_bytes, timeout=30)
                assert reply == request_bytes

            def invoke_call(kinds: list[Any] | None) -> Callable[[], Awaitable[None]]:
                async def call() -> None:
                    r = await client.invoke("chain3", uuid.uuid4().hex, {"n": 0}, event_kinds=kinds, timeout=60)
                    assert r.reason is FinishReason.END and r.values["n"] == 3, r
                    info.setdefault(f"events{'' if kinds is None else '-all'}", len(r.events))

                return call

            for callers in args.callers:
                rows.append(
                    await measure("echo (bare grpcio unary)", echo_call, callers, echo_calls, seconds, warmup, server=echo)
                )
            for callers in args.callers:
                rows.append(
                    await measure("invoke (default)", invoke_call(None), callers, invoke_calls, seconds, warmup, server=server)
                )
            for callers in args.callers:
                rows.append(
                    await measure(
                        "invoke (all events)", invoke_call(all_kinds), callers, invoke_calls, seconds, warmup, server=server
                    )
                )
    finally:
        info["server_exit"] = server.stop()
        info["echo_exit"] = echo.stop()
    if args.pg:
        rows += await _pg_rows(args, tmp, info, warmup)
    return rows, info


async def _pg_rows(args: argparse.Namespace, tmp: str, info: dict[str, Any], warmup: int) -> list[Row]:
    """The PostgreSQL rows (none when the database cannot be reached), in a database of their own.

    A database of its own, so that its backends (``pg_stat_activity.datname``) are
    the server's alone: their CPU is the ``db CPU us`` column."""
    import psycopg
    from graphwire import AsyncClient, EventKind, FinishReason
    from psycopg import sql
    from urllib.parse import urlsplit, urlunsplit

    database = f"gw_bench_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(args.pg, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    except psycopg.Error as exc:
        info["pg_skipped"] = f"{args.pg}: {str(exc).strip().splitlines()[0]}"
        return []
    dsn = urlunsplit(urlsplit(args.pg)._replace(path=f"/{database}"))  # --pg is a postgresql:// URL, as serve wants
    backends = Backends(args.pg, database)
    rows: list[Row] = []
    try:
        for workers in args.workers:  # a worker is a server process; the client opens 4 connections per worker to reach them all
            server = _start(
                [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", dsn, "--workers", str(workers),
                 "--graph", "chain3=bench.grpc_throughput:chain3", "--log-level", "WARNING"],
                "graphwire listening on", tmp, Path(tmp) / "server-pg.log",
            )  # fmt: skip
            try:
                await _wait_serving(server.address)
                async with AsyncClient(server.address, channels=1 if workers == 1 else 4 * workers) as client:

                    def invoke_call(kinds: list[Any] | None) -> Callable[[], Awaitable[None]]:
                        async def call() -> None:
                            r = await client.invoke("chain3", uuid.uuid4().hex, {"n": 0}, event_kinds=kinds, timeout=60)
                            assert r.reason is FinishReason.END and r.values["n"] == 3, r

                        return call

                    suffix = "" if workers == 1 else f" x{workers}"
                    for label, kinds in (("default", None), ("all events", list(EventKind))):
                        for callers in args.callers:
                            rows.append(
                                await measure(f"invoke ({label}, PostgreSQL){suffix}", invoke_call(kinds), callers,
                                              args.calls, args.seconds, warmup, server=server, backends=backends)
                            )  # fmt: skip
            finally:
                code = server.stop()
                info["pg_server_exit"] = info.get("pg_server_exit") or code
    finally:
        with psycopg.connect(args.pg, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)))
    return rows


def _versions() -> str:
    import grpc

    return f"python {platform.python_version()}, grpcio {grpc.__version__}, {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: fewer calls, shorter rows")
    p.add_argument("--calls", type=int, help="most calls per row (echo rows: 4×) (default 2000, quick 200)")
    p.add_argument("--seconds", type=float, help="most seconds per row (default 5, quick 1)")
    p.add_argument("--pg", default=os.environ.get("GRAPHWIRE_BENCH_PG", "postgresql://root@127.0.0.1:5432/test"),
                   help="the PostgreSQL rows' database ('' for none; env GRAPHWIRE_BENCH_PG)")
    p.add_argument("--durable", action="store_true", help="only the rows of request_id and CONTINUE against the default")
    p.add_argument("--pg-only", action="store_true", help="only the PostgreSQL rows")
    p.add_argument("--workers", type=lambda t: [int(n) for n in t.split(",")], default=[1],
                   help="the PostgreSQL rows' server processes, e.g. 1,2 for a row of each (default 1)")
    p.add_argument("--callers", type=lambda t: [int(n) for n in t.split(",")], default=list(CALLERS),
                   help="the rows' concurrent callers (default 1,8,32)")
    p.add_argument("--serve-echo", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve_echo:
        asyncio.run(_serve_echo())
        return 0
    args.calls = args.calls or (200 if args.quick else 2000)
    args.seconds = args.seconds or (1.0 if args.quick else 5.0)
    if args.durable:
        from bench.durable_cost import MIN_ROUNDS, durable_rows, round_size

        with tempfile.TemporaryDirectory(prefix="gw-bench-") as tmp:
            lines = asyncio.run(durable_rows(_start, _wait_serving, tmp, args.pg, args.calls))
        print(f"graphwire Invoke over gRPC, the cost of durable turns: {_versions()}")
        print("graph: 3 nodes, a new thread per call; variants take turns, rounds of "
              f"{round_size(1)} calls each (1 caller) / {round_size(32)} (32 callers), {args.calls} calls or {MIN_ROUNDS} rounds per row")  # fmt: skip
        print("\n".join(lines))
        return 0

    with tempfile.TemporaryDirectory(prefix="gw-bench-") as tmp:
        try:
            rows, info = asyncio.run(run_bench(args, tmp))
        except Exception as e:  # print what failed, with the server's log
            print(f"bench failed: {type(e).__name__}: {e}", file=sys.stderr)
            for name in ("server.log", "echo.log", "server-pg.log"):
                path = Path(tmp) / name
                if path.exists():
                    print(f"--- {name}\n{path.read_text(errors='replace')[-4000:]}", file=sys.stderr)
            return 1

    print(f"graphwire Invoke over gRPC on loopback: {_versions()}")
    print(f"graph: 3 nodes (START → a → b → c → END), {'PostgreSQL' if args.pg_only else 'SQLite'} checkpointer, a new thread per call; "
          f"events per invoke: {info.get('events', '?')} (default) / {info.get('events-all', '?')} (all events)")  # fmt: skip
    print(f"at most {args.calls} calls (echo {args.calls * 4}) or {args.seconds:g} s per row, after a warm-up")
    print()
    header = f"{'what':<40} {'callers':>7} {'calls':>6} {'runs/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'srv CPU us':>10} {'runs/CPU-s':>10} {'db CPU us':>9}"
    print(header)
    print("-" * len(header))
    for r in rows:
        per_cpu = f"{r.calls / r.server_cpu_s:.0f}" if r.server_cpu_s else "-"
        print(f"{r.what:<40} {r.callers:>7} {r.calls:>6} {r.rate:>9.0f} {r.p50:>8.3f} {r.pct(0.99):>8.3f} {r.cpu_us:>10} {per_cpu:>10} {r.db_cpu_us:>9}")
    print()
    echo1 = next((r for r in rows if r.what.startswith("echo") and r.callers == 1), None)
    eng = next((r for r in rows if r.what.startswith("engine")), None)
    if echo1 is not None and eng is not None:
        bound = 3 * echo1.p50 + eng.p50
        print(f"target: invoke p50 with 1 caller <= 3 x echo p50 ({echo1.p50:.3f} ms) + engine p50 ({eng.p50:.3f} ms) = {bound:.3f} ms")
        for what in ("invoke (default)", "invoke (all events)"):
            inv1 = next((r for r in rows if r.what == what and r.callers == 1), None)
            if inv1 is None:
                continue
            verdict = "holds" if inv1.p50 <= bound else "does NOT hold"
            print(f"  {what:<21} p50 {inv1.p50:.3f} ms ({inv1.p50 / bound:.2f} x the target): {verdict}")
    pg32 = next((r for r in rows if r.what == "invoke (default, PostgreSQL)" and r.callers == 32), None)
    if pg32 is not None:
        verdict = "holds" if pg32.rate >= 500 else "does NOT hold"
        print(f"target: PostgreSQL invoke with 32 callers >= 500 runs/s: {pg32.rate:.0f} runs/s, {verdict}")
    elif info.get("pg_skipped"):
        print(f"PostgreSQL rows skipped: {info['pg_skipped']}")
    print("(32 callers share this one client process; its event loop may be the limit there.)")
    for key in ("server_exit", "pg_server_exit"):
        if info.get(key, 0) != 0:
            print(f"graphwire server exited with {info.get(key)} on SIGTERM", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
