"""Soak: chat threads with interrupts against two replicas on one PostgreSQL.

    python bench/soak.py                      # 16 threads for 2 minutes (bounded)
    python bench/soak.py --threads 32 --minutes 5 --rolling

N concurrent "users", each on its own thread, loop over turns of the
reminders agent: a reminder request (INTERRUPT, then Resume "yes": END) or a
weather question (END, through the slow async tool). Calls go round-robin to
two replicas of ``graphwire serve`` on one PostgreSQL schema (loopback only;
bounded by --minutes and --max-turns). With ``--rolling``, halfway through one
replica gets SIGTERM and a new one takes its place: callers retry a call that
got UNAVAILABLE on the other replica.

Prints, per minute: calls, p50/p99 latency, each replica's RSS; at the end:
runs started = finished + interrupted + failed (must reconcile exactly),
errors by status code, and checks that nothing was lost: every thread's
history is one chain and holds exactly the reminders its user confirmed.
Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DSN = os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")


@dataclass
class Replica:
    proc: subprocess.Popen[bytes]
    address: str

    def rss_kib(self) -> int:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except FileNotFoundError:
            pass
        return 0


def start_replica(schema: str, workdir: Path) -> Replica:
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", DSN,
           "--pg-schema", schema, "--lease-seconds", "5", "--grace", "5", "--log-level", "WARNING"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRAPHWIRE_FORECAST_DELAY": "0.05"}
    env.pop("GRAPHWIRE_AUTH_TOKEN", None)
    log = open(workdir / f"replica-{uuid.uuid4().hex[:6]}.log", "wb")
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=log)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if "listening on" not in line:
        raise SystemExit(f"replica did not start: {line!r} (log in {log.name})")
    return Replica(proc, line.split()[-1])


@dataclass
class Stats:
    started: int = 0
    finished: int = 0
    interrupted: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    latencies: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    confirmed: dict[str, int] = field(default_factory=lambda: defaultdict(int))


class Pool:
    """Round-robin over the live replicas; a call that gets UNAVAILABLE is retried on the next one."""

    def __init__(self) -> None:
        self.clients: list[Any] = []
        self.i = 0

    def next(self) -> Any:
        self.i += 1
        return self.clients[self.i % len(self.clients)]


async def call(pool: Pool, stats: Stats, t0: float, what: str, fn: Any) -> Any:
    from graphwire import Unavailable

    for attempt in range(10):
        client = pool.next()
        started = time.perf_counter()
        stats.started += 1
        try:
            result = await fn(client)
        except Unavailable as e:  # retryable: a replica is draining or restarting
            stats.failed += 1
            stats.errors[f"{what}: UNAVAILABLE"] += 1
            _ = e
            await asyncio.sleep(0.05 * (attempt + 1))
            continue
        except Exception as e:  # noqa: BLE001 - counted, reported
            stats.failed += 1
            stats.errors[f"{what}: {type(e).__name__}"] += 1
            return None
        minute = int((time.monotonic() - t0) // 60)
        stats.latencies[minute].append(time.perf_counter() - started)
        if result.reason == "INTERRUPT":
            stats.interrupted += 1
        elif result.reason == "END":
            stats.finished += 1
        else:
            stats.failed += 1
            stats.errors[f"{what}: run {result.reason}"] += 1
        return result
    return None


async def user(pool: Pool, stats: Stats, thread: str, deadline: float, max_turns: int, t0: float) -> None:
    rng = random.Random(thread)
    for turn in range(max_turns):
        if time.monotonic() > deadline:
            return
        if rng.random() < 0.5:
            text = f"remind me to task {turn} at {rng.randint(1, 12)}pm"
            r = await call(pool, stats, t0, "invoke", lambda c: c.invoke("reminders", thread, {"messages": [{"role": "user", "content": text}]}, timeout=60))
            if r is not None and r.reason == "INTERRUPT":
                done = await call(pool, stats, t0, "resume", lambda c: c.resume("reminders", thread, "yes", timeout=60))
                if done is not None and done.reason == "END":
                    stats.confirmed[thread] += 1
        else:
            await call(pool, stats, t0, "invoke", lambda c: c.invoke("reminders", thread, {"messages": [{"role": "user", "content": "weather in Oslo"}]}, timeout=60))


def chain_ok(history: list[Any]) -> bool:
    ids = {s.checkpoint.checkpoint_id for s in history}
    kids = Counter(s.checkpoint.parent_id for s in history if s.checkpoint.parent_id)
    roots = [s for s in history if s.checkpoint.parent_id is None]
    return len(roots) == 1 and all(p in ids for p in kids) and all(n == 1 for n in kids.values())


async def main_async(args: argparse.Namespace) -> int:
    import tempfile

    import psycopg
    from graphwire import AsyncClient

    schema = f"soak_{uuid.uuid4().hex[:8]}"
    work = Path(tempfile.mkdtemp(prefix="gw-soak-"))
    replicas = [start_replica(schema, work), start_replica(schema, work)]
    pool = Pool()
    pool.clients = [AsyncClient(r.address) for r in replicas]
    stats = Stats()
    t0 = time.monotonic()
    deadline = t0 + args.minutes * 60
    rss: dict[int, list[int]] = {}

    async def sample() -> None:
        while time.monotonic() < deadline:
            minute = int((time.monotonic() - t0) // 60)
            rss[minute] = [r.rss_kib() for r in replicas]
            await asyncio.sleep(5)

    async def rolling() -> None:
        await asyncio.sleep(args.minutes * 30)
        old = replicas[0]
        old.proc.send_signal(signal.SIGTERM)  # drains: callers on it get UNAVAILABLE and retry elsewhere
        await asyncio.get_running_loop().run_in_executor(None, old.proc.wait)
        new = await asyncio.get_running_loop().run_in_executor(None, start_replica, schema, work)
        replicas[0] = new
        pool.clients[0] = AsyncClient(new.address)
        print(f"  rolled replica 0: exit {old.proc.returncode}, new one on {new.address}", flush=True)

    threads = [f"soak-{i}" for i in range(args.threads)]
    tasks = [asyncio.ensure_future(sample())]
    if args.rolling:
        tasks.append(asyncio.ensure_future(rolling()))
    await asyncio.gather(*(user(pool, stats, t, deadline, args.max_turns, t0) for t in threads))
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    print(f"{args.threads} threads, {args.minutes} min, replicas on {DSN} schema {schema}")
    print(f"{'minute':>6}  {'calls':>6}  {'p50 ms':>8}  {'p99 ms':>8}  RSS KiB per replica")
    for minute in sorted(stats.latencies):
        lat = sorted(stats.latencies[minute])
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"{minute:>6}  {len(lat):>6}  {statistics.median(lat) * 1e3:>8.1f}  {p99 * 1e3:>8.1f}  {rss.get(minute, [])}")
    reconciled = stats.started == stats.finished + stats.interrupted + stats.failed
    print(f"runs started {stats.started} = finished {stats.finished} + interrupted {stats.interrupted} + failed {stats.failed}: "
          f"{'reconciles' if reconciled else 'DOES NOT reconcile'}")
    for what, n in sorted(stats.errors.items()):
        print(f"  error {what}: {n}")

    lost = []
    async with AsyncClient(replicas[1].address) as client:
        for t in threads:
            history: list[Any] = []
            while True:  # pages: a long thread's full history is larger than one message
                page = await client.history(
                    "reminders", t, limit=20, before=history[-1].checkpoint.checkpoint_id if history else None, timeout=60
                )
                history += page
                if len(page) < 20:
                    break
            if not history:
                continue
            state = await client.get_state("reminders", t, timeout=60)
            if not chain_ok(history) or len(state.values.get("reminders", [])) != stats.confirmed[t]:
                lost.append(t)
    print(f"threads checked {len(threads)}: {'nothing lost' if not lost else f'{len(lost)} with a problem: {lost[:5]}'}")
    for c in pool.clients:
        await c.close()
    for r in replicas:
        r.proc.send_signal(signal.SIGTERM)
        r.proc.wait(30)
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return 0 if reconciled and not lost else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--minutes", type=float, default=2.0)
    p.add_argument("--max-turns", type=int, default=10_000, help="per thread; bounds the run by count too")
    p.add_argument("--rolling", action="store_true", help="SIGTERM one replica halfway and start a new one")
    return asyncio.run(main_async(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
