"""The statements a run makes on PostgreSQL, and their time in the backend, from PostgreSQL's own log.

Issue 36 item 1 asks for fewer statements and round trips per run. This
serves ``bench/grpc_throughput.py``'s 3-node chain from a tree of the code
(default: this checkout) on a database of its own, created with
``log_min_duration_statement = 0`` (every statement's phases logged with
their duration) and dropped at the end, sends it ``--runs`` calls (the
clients' ``invoke``, a new thread each, ``--callers`` at once) after a
warm-up, and reads what the server's log gained meanwhile: per statement and
protocol phase (parse, bind, execute), how many a run and the median
duration. It needs the server's log file (``--log``) on this machine, and a
role that may ``ALTER DATABASE ... SET`` it. It asserts nothing.

Usage::

    python bench/pg_statements.py --runs 400
    python bench/pg_statements.py --runs 400 --face http   # LangGraph's HTTP API (langgraph-sdk's runs.wait)
    python bench/pg_statements.py --tree /path/to/another/checkout
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import re
import statistics
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

_ROOT = Path(__file__).resolve().parent.parent
_ENTRY = re.compile(r"@(\S+) LOG:  duration: ([\d.]+) ms  (statement|execute|bind|parse)[^:]*: (.*?)(?=\n\S|\Z)", re.S)


async def _drive_http(url: str, runs: int, callers: int, log: Path) -> int:
    """As :func:`_drive` over LangGraph's HTTP API, as the peers bench calls it: the real
    ``langgraph-sdk``'s ``runs.wait`` (a POST), each caller on a thread it created."""
    from langgraph_sdk import get_client

    client = get_client(url=url)
    warm = (await client.threads.create(graph_id="chain3"))["thread_id"]
    for _ in range(20):
        await client.runs.wait(warm, "chain3", input={"n": 0})
    threads = [(await client.threads.create(graph_id="chain3"))["thread_id"] for _ in range(callers)]
    await asyncio.sleep(0.5)  # what the warm-up logged is written
    start = log.stat().st_size
    left = [runs]

    async def caller(thread: str) -> None:
        while left[0] > 0:
            left[0] -= 1
            await client.runs.wait(thread, "chain3", input={"n": 0})

    await asyncio.gather(*(caller(t) for t in threads))
    await asyncio.sleep(0.5)
    return start


async def _drive(address: str, runs: int, callers: int, log: Path) -> int:
    """Warm up, then send ``runs`` calls; the log's size before them."""
    from graphwire import AsyncClient

    async with AsyncClient(address) as client:
        for _ in range(20):
            await client.invoke("chain3", uuid.uuid4().hex, {"n": 0})
        await asyncio.sleep(0.5)  # what the warm-up logged is written
        start = log.stat().st_size
        left = [runs]

        async def caller() -> None:
            while left[0] > 0:
                left[0] -= 1
                await client.invoke("chain3", uuid.uuid4().hex, {"n": 0})

        await asyncio.gather(*(caller() for _ in range(callers)))
        await asyncio.sleep(0.5)
        return start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", type=Path, default=_ROOT, help="the code to serve (a checkout)")
    p.add_argument("--runs", type=int, default=400)
    p.add_argument("--callers", type=int, default=4)
    p.add_argument("--face", choices=["grpc", "http"], default="grpc", help="the clients' invoke (a new thread each), or langgraph-sdk's runs.wait")
    p.add_argument("--pg", default=os.environ.get("GRAPHWIRE_BENCH_PG", "postgresql://root@127.0.0.1:5432/test"))
    p.add_argument("--log", type=Path, default=Path("/var/log/postgresql/postgresql-15-main.log"), help="the server's log file")
    args = p.parse_args(argv)
    import psycopg
    from psycopg import sql

    sys.path[:0] = [str(_ROOT / "clients/python"), str(_ROOT / "proto/python")]
    db = f"gw_stmts_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(args.pg, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db)))
        conn.execute(sql.SQL("ALTER DATABASE {} SET log_min_duration_statement = 0").format(sql.Identifier(db)))
    tree = args.tree.resolve()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(tree / d) for d in ("", "proto/python", "clients/python")))
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer",
           urlunsplit(urlsplit(args.pg)._replace(path=f"/{db}")), "--graph", "chain3=bench.grpc_throughput:chain3",
           "--log-level", "WARNING", "--workers", "1"] + (["--http", "127.0.0.1:0"] if args.face == "http" else [])  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        address = url = None
        assert proc.stdout is not None
        for line in proc.stdout:
            found = re.search(r"graphwire (listening|http) on (\S+)", line)
            if found and found.group(1) == "http":
                url = found.group(2)
            elif found:
                address = found.group(2)
                break
        if address is None or (args.face == "http" and url is None):
            raise SystemExit("the server did not start")
        if url is not None:
            start = asyncio.run(_drive_http(url, args.runs, args.callers, args.log))
        else:
            start = asyncio.run(_drive(address, args.runs, args.callers, args.log))
    finally:
        proc.terminate()
        proc.wait()
        with psycopg.connect(args.pg, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(db)))
    with args.log.open(errors="replace") as f:
        f.seek(start)
        text = f.read()
    times: dict[str, list[float]] = collections.defaultdict(list)
    for who, ms, phase, statement in _ENTRY.findall(text):
        if who == db:
            times[f"{phase:<9} {' '.join(statement.split())[:80]}"].append(float(ms))
    print(f"{tree}: {args.runs} runs, {args.callers} callers; per run and median duration, by statement and phase")
    for name, ms in sorted(times.items(), key=lambda kv: -len(kv[1])):
        if len(ms) / args.runs >= 0.05:
            print(f"{len(ms) / args.runs:5.2f}  {statistics.median(ms):6.3f} ms  {name}")
    executed = sum(len(ms) for name, ms in times.items() if name.startswith(("execute", "statement")))
    print(f"statements per run (executed): {executed / args.runs:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
