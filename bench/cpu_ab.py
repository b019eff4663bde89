"""The server's CPU per run, two versions of the code side by side: a commit against the checkout.

Issue 36 item 1 asks for half the server's CPU per run; on a machine shared
with other work the rows of ``bench/grpc_throughput.py`` run one after the
other move by ±20 % with the load, more than most single changes. Here two
``graphwire serve`` processes run at once, one from ``--before`` (a commit,
exported with ``git archive`` into a temporary directory) and one from this
checkout, each on a checkpointer of its own (PostgreSQL: a database each,
created and dropped here; SQLite: a file each), both serving the 3-node chain
of ``bench/grpc_throughput.py`` (``--graph chat``: bench/peers_app's tool-calling chat, each
caller on conversations of 20 turns). Calls go to them in rounds, taking turns
(which goes first alternates), so a load that comes and goes falls on both.

Per version: the server's CPU per run (its threads' run time from
``/proc/<pid>/task/*/schedstat``) and, on PostgreSQL, its backends' (the pids
``pg_stat_activity`` names for its database, from ``/proc/<pid>/stat``), over
every round; then the ratio after/before over all rounds and the median of
the per-round ratios with their interquartile range. Calls are the clients'
``invoke`` (RunStarted and RunFinished: ``--events default``) or with every
event kind (``--events all``; ``--events core``: all but the LangChain callback events, which a
server before they existed refuses, as at issue 36's filing), a new thread per call (or, ``--threads reused``, one thread per
caller for all its calls: a chat's later turns). ``--face http``: the servers serve LangGraph's HTTP API
too (``--http``) and each call is langgraph-sdk's ``runs.wait`` (``if_not_exists="create"``: a new
thread is made by its first run), as LangGraph's SDKs call it. It asserts nothing.

Usage::

    python bench/cpu_ab.py --before 5ca9a05 --kind pg --events default --callers 8 --rounds 12 --calls 120
    python bench/cpu_ab.py --before main --kind sqlite --events all
    python bench/cpu_ab.py --before main --kind sqlite --graph chat --callers 8 --rounds 8 --calls 80
    python bench/cpu_ab.py --before main --kind pg --face http --threads reused --callers 32 --rounds 6 --calls 200
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from bench._peers_callers import chat_input, check  # noqa: E402
from bench.durable_cost import cpu_ns  # noqa: E402
from bench.grpc_throughput import Backends, Proc, _start, _wait_serving  # noqa: E402


#: what ``graphwire serve --http`` prints before its URL
HTTP_LINE = "graphwire http on "
#: --graph chat: turns per conversation (bench/peers.py's callers do 20 on a thread)
CHAT_TURNS = 20


def _serve(tree: Path, checkpointer: str, log: Path, graph: str = "chain3", http: bool = False) -> Proc:
    """``graphwire serve`` of the code at ``tree`` (one worker) on ``checkpointer``, serving ``graph``:
    chain3 (bench/grpc_throughput.py's) or chat (bench/peers_app's project, as its langgraph.json names it).
    ``http``: with LangGraph's HTTP API too (``--http``); the Proc's address is then its URL."""
    served = ["--graph", "chain3=bench.grpc_throughput:chain3"] if graph == "chain3" else [
        "--config", str(tree / "bench" / "peers_app" / "langgraph.json")]  # fmt: skip
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", checkpointer,
           *served, "--log-level", "WARNING"]  # fmt: skip
    if checkpointer.startswith("postgresql://"):
        cmd += ["--workers", "1"]
    if http:
        cmd += ["--http", "127.0.0.1:0"]
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(str(tree / p) for p in ("", "proto/python", "clients/python"))
    try:  # _start puts the bench's root first: the served tree's own bench/ must win, so it is the cwd and first
        lines: list[str] = []
        proc = _start(cmd, "graphwire listening on", str(tree), log, keep=lines)
        if http:  # its line comes before the gRPC one
            proc.address = next(line.removeprefix(HTTP_LINE) for line in lines if line.startswith(HTTP_LINE)).rstrip("/")
        return proc
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


async def _rounds(args: argparse.Namespace, procs: dict[str, Proc], backends: dict[str, Backends | None]) -> list[str]:
    from graphwire import AsyncClient, EventKind

    kinds = None  # the clients' default: RunStarted and RunFinished
    if args.events == "all":
        kinds = list(EventKind)
    elif args.events == "core":
        kinds = [k for k in EventKind if k is not EventKind.CALLBACK]
    clients = {tag: AsyncClient(p.address) for tag, p in procs.items()} if args.face == "grpc" else {}
    sdks = {tag: _sdk(p.address) for tag, p in procs.items()} if args.face == "http" else {}
    for c in clients.values():
        await c.__aenter__()
    try:

        turns: dict[tuple[str, int], int] = {}  # (version, caller) -> its chat turns so far

        async def call(tag: str, graph: str, thread: str, values: dict[str, Any]) -> Any:
            """One turn: the clients' invoke, or langgraph-sdk's ``runs.wait`` (the thread made by the run if new)."""
            if args.face == "http":
                if graph == "chat":  # a thread id of LangGraph's API is a UUID
                    thread = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{tag}/{thread}"))
                elif args.threads == "new":
                    thread = str(uuid.uuid4())
                else:
                    thread = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{tag}/{thread}"))
                return await sdks[tag].runs.wait(thread, graph, input=values, if_not_exists="create")
            return (await clients[tag].invoke(graph, thread, values, event_kinds=kinds, timeout=60)).values

        async def batch(tag: str, n: int) -> None:
            left = [n]

            async def caller(k: int) -> None:
                while left[0] > 0:
                    left[0] -= 1
                    if args.graph == "chat":  # a conversation of CHAT_TURNS turns, then a new one
                        turn = turns[(tag, k)] = turns.get((tag, k), -1) + 1
                        thread, i = f"chat-{k}-{turn // CHAT_TURNS}", turn % CHAT_TURNS
                        check("chat", i, await call(tag, "chat", thread, chat_input(i)))
                        continue
                    thread = f"caller-{k}" if args.threads == "reused" else uuid.uuid4().hex
                    values = await call(tag, "chain3", thread, {"n": 0})
                    assert values["n"] == 3, values

            await asyncio.gather(*(caller(k) for k in range(args.callers)))

        for tag in procs:
            await batch(tag, max(60, args.calls // 2))  # warm-up
        total = {tag: [0.0, 0.0] for tag in procs}  # server ns, backends s
        ratios: dict[str, list[float]] = {"server": [], "db": []}
        for n in range(args.rounds):
            spent: dict[str, tuple[float, float]] = {}
            for tag in ("before", "after") if n % 2 == 0 else ("after", "before"):
                db = backends[tag]
                db_before = db.snapshot() if db is not None else None
                cpu_before = cpu_ns(procs[tag].popen.pid)
                await batch(tag, args.calls)
                cpu = cpu_ns(procs[tag].popen.pid) - cpu_before
                used = Backends.spent(db_before, db.snapshot()) if db is not None and db_before is not None else 0.0
                spent[tag] = (cpu, used)
                total[tag][0] += cpu
                total[tag][1] += used
            ratios["server"].append(spent["after"][0] / spent["before"][0])
            if spent["before"][1]:
                ratios["db"].append(spent["after"][1] / spent["before"][1])
    finally:
        for c in clients.values():
            await c.__aexit__(None, None, None)
        for sdk in sdks.values():
            await sdk.http.client.aclose()
    calls = args.calls * args.rounds
    lines = []
    for tag in ("before", "after"):
        db = f", PostgreSQL's backends {total[tag][1] / calls * 1e6:.0f} us" if backends[tag] is not None else ""
        lines.append(f"{tag:<7} server {total[tag][0] / calls / 1e3:.0f} us per run{db}")
    for what, i in (("server", 0), ("db", 1)):
        if ratios[what]:
            q1, _, q3 = statistics.quantiles(ratios[what], n=4)
            lines.append(
                f"after/before, {'server' if i == 0 else 'backends'}: {total['after'][i] / total['before'][i]:.2f} over all rounds; "
                f"per round median {statistics.median(ratios[what]):.2f} (IQR {q1:.2f}-{q3:.2f})"
            )
    return lines


def _sdk(url: str) -> Any:
    """langgraph-sdk's async client of the server at ``url`` (no retries: a failure shows)."""
    from langgraph_sdk import get_client

    return get_client(url=url, api_key=None)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="the commit to compare this checkout with (any git revision)")
    p.add_argument("--kind", choices=("pg", "sqlite"), default="pg")
    p.add_argument("--graph", choices=("chain3", "chat"), default="chain3",
                   help=f"chat: bench/peers_app's tool-calling chat, each caller's threads {CHAT_TURNS} turns long")  # fmt: skip
    p.add_argument("--events", choices=("default", "core", "all"), default="default")
    p.add_argument("--face", choices=("grpc", "http"), default="grpc",
                   help="http: LangGraph's HTTP API (--http), langgraph-sdk's runs.wait for each call")  # fmt: skip
    p.add_argument("--callers", type=int, default=8)
    p.add_argument("--threads", choices=("new", "reused"), default="new",
                   help="a new thread per call, or one thread per caller for all its calls (a chat's later turns)")  # fmt: skip
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--calls", type=int, default=120, help="calls per version per round")
    p.add_argument("--pg", default=os.environ.get("GRAPHWIRE_BENCH_PG", "postgresql://root@127.0.0.1:5432/test"),
                   help="the PostgreSQL server (a database per version is created on it)")  # fmt: skip
    args = p.parse_args(argv)
    if args.face == "http" and args.events != "default":
        p.error("--events is the gRPC clients' option: runs.wait over HTTP streams nothing")
    import psycopg
    from psycopg import sql
    from urllib.parse import urlsplit, urlunsplit

    with tempfile.TemporaryDirectory(prefix="gw-ab-") as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        archive = subprocess.run(["git", "-C", str(_ROOT), "archive", args.before], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        trees = {"before": before, "after": _ROOT}
        databases = {tag: f"gw_ab_{uuid.uuid4().hex[:10]}" for tag in trees} if args.kind == "pg" else {}
        procs: dict[str, Proc] = {}
        try:
            for tag, tree in trees.items():
                if args.kind == "pg":
                    with psycopg.connect(args.pg, autocommit=True) as conn:
                        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(databases[tag])))
                    checkpointer = urlunsplit(urlsplit(args.pg)._replace(path=f"/{databases[tag]}"))
                else:
                    checkpointer = str(Path(tmp) / f"{tag}.db")
                procs[tag] = _serve(tree, checkpointer, Path(tmp) / f"{tag}.log", args.graph, http=args.face == "http")
            for proc in procs.values():
                if args.face == "grpc":
                    asyncio.run(_wait_serving(proc.address))
            backends: dict[str, Any] = {tag: Backends(args.pg, databases[tag]) if databases else None for tag in trees}
            lines = asyncio.run(_rounds(args, procs, backends))
        finally:
            for proc in procs.values():
                proc.stop()
            if databases:
                with psycopg.connect(args.pg, autocommit=True) as conn:
                    for name in databases.values():
                        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    load = os.getloadavg()
    threads = f"{CHAT_TURNS}-turn chats" if args.graph == "chat" else f"{args.threads} threads"
    face = "HTTP runs.wait" if args.face == "http" else f"events {args.events}"
    print(f"{args.before} (before) vs this checkout (after): {args.graph}, {args.kind}, {face}, {threads}, {args.callers} callers, "
          f"{args.rounds} rounds of {args.calls} calls each; load average after {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")  # fmt: skip
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
