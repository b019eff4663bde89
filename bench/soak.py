"""Soak: chat threads with interrupts against two replicas on one PostgreSQL.

    python bench/soak.py                      # 16 threads for 2 minutes (bounded)
    python bench/soak.py --threads 32 --minutes 5 --rolling
    python bench/soak.py --slow-readers 4 --never-readers 4
    python bench/soak.py --rolling --durable --kill  # CONTINUE runs with request_ids; the rolled replica is SIGKILLed
    python bench/soak.py --threads 4 --never-readers 2 --bursts --max-unsent-mib 8   # issue 28 item 2

N concurrent "users", each on its own thread, loop over turns of the
reminders agent: a reminder request (INTERRUPT, then Resume "yes": END) or a
weather question (END, through the slow async tool). Calls go round-robin to
two replicas of ``graphwire serve`` on one PostgreSQL schema (loopback only;
bounded by --minutes and --max-turns). With ``--rolling``, halfway through one
replica gets SIGTERM and a new one takes its place: callers retry a call that
got UNAVAILABLE on the other replica.

Beside them, callers that read badly, on threads of the ``bulky`` graph
(defined here: three steps whose state is a string of ``--blob-mib``, so
each step's events are megabytes):

* ``--slow-readers``: each streams a run and reads one event every
  ``--slow-pause`` seconds, turn after turn;
* ``--never-readers``: each starts a run, reads nothing (its channel has
  HTTP/2 BDP probing off, so the transport takes only its 64 KiB window) and
  keeps the call open until the end, then starts the next on the same
  thread (``--never-pause`` seconds after the last one started). With
  events past ``max_unsent_bytes`` (32 MiB by default), the call ends
  RESOURCE_EXHAUSTED and its run is cancelled; at the end each unread call is
  read and its outcome counted. A next call answered ABORTED is legitimate
  while the thread's last run still runs (a 4 MiB run can take longer than
  the pause on a loaded machine) and for a moment after its record ended
  (the thread is let go once the engine has unwound and the lease's release,
  a database round trip given up after 2 s, is done): the thread's newest
  run record (``ListRuns``) says which. Only a refusal that comes more than
  ``HELD_AFTER_END`` seconds after that run ended counts as a thread held by
  a finished run, and fails the soak (as does a refusal with another code,
  UNAVAILABLE from the replica being rolled away excepted).

With ``--bursts`` (issue 28 item 2), the never-readers call ``burst``
instead (bench/_bursts.py: one sync node writing ``--burst-mib`` of custom
events in a tight loop), in ``--rounds`` rounds of ``--never-readers`` unread
calls on each replica, and the end prints each round's peak RSS and RSS once
its calls ended, per replica, against the budgets plus a fixed overhead and
10% above the RSS before the first round (see that module).

With ``--durable`` (issue 20), every user call is a durable turn: a
request_id per logical call, kept for its retries, and ``on_disconnect =
CONTINUE``; a call whose stream breaks (UNAVAILABLE, a replica gone) is sent
again, same request_id, to the next replica, which answers its outcome, joins
it, or continues it. A logical call counts once, however many attempts it
took. ``--kill`` rolls the replica with SIGKILL instead of SIGTERM, so runs
die mid-step and are continued elsewhere. The end then also checks that no
run is left active (pending, running or recovering) in the run records,
that no user message was applied twice (each turn's text is unique: counted
in the stored state), and that no logical call failed for good: every
attempt refused, or an error that is not retried (a call whose stream never
ends, its run over, is DEADLINE_EXCEEDED after its 60 s).

Prints, per minute: calls, p50/p99 latency, each replica's RSS; at the end:
runs started = finished + interrupted + failed (must reconcile exactly),
errors by status code (with --durable, each call that failed for good, with
its run records), and checks that nothing was lost: every thread's history
is one chain (its versions' ids and parents, read from the schema: reading
every version's values through ListHistory took half a minute) and its state
holds exactly the reminders its user confirmed.
Then, per replica, its peak RSS, its RSS once the runs are over while the
unread calls are still open, and the number of threads still locked after
their runs ended (every bad reader's thread is tried on every replica while
the unread calls are still open; one that answers ABORTED for
``LOCK_GRACE`` seconds counts): must be 0. Exits 1 when a check fails.
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
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _bursts import burst_rounds  # noqa: E402  (bench/, the script's directory)

DSN = os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
#: A thread answering ABORTED this long after the load stopped is held by a run that ended (runs take < 1 s).
LOCK_GRACE = 10.0
#: A thread is let go this long at most after its run's record ended (the lease's release is given up after 2 s).
HELD_AFTER_END = 3.0
#: A never-reader's channel: no BDP probing, so HTTP/2 buffers no more than its initial window.
STALLED = [("grpc.http2.bdp_probe", 0), ("grpc.max_receive_message_length", 64 * 1024 * 1024)]


def bulky() -> Any:
    """START → a → b → c → END; each node sets ``blob`` to ``size`` copies of its name (megabytes of events)."""
    from typing import TypedDict

    from engine import END, START, StateGraph

    class Bulky(TypedDict, total=False):
        size: int
        n: int
        blob: str

    def step(name: str) -> Any:
        return lambda s: {"n": s.get("n", 0) + 1, "blob": name * s.get("size", 1)}

    g = StateGraph(Bulky)
    g.add_sequence([(name, step(name)) for name in "abc"])
    g.add_edge(START, "a")
    g.add_edge("c", END)
    return g


@dataclass
class Replica:
    proc: subprocess.Popen[bytes]
    address: str
    peak_kib: int = 0

    def rss_kib(self) -> int:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    kib = int(line.split()[1])
                    self.peak_kib = max(self.peak_kib, kib)
                    return kib
        except FileNotFoundError:
            pass
        return 0


def start_replica(schema: str, workdir: Path, max_unsent_mib: float | None = None) -> Replica:
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", DSN,
           "--pg-schema", schema, "--workers", "1", "--lease-seconds", "5", "--grace", "5", "--log-level", "WARNING",
           "--graph", "reminders=examples.reminders:graph", "--graph", f"bulky={Path(__file__).resolve()}:bulky",
           "--graph", f"burst={Path(__file__).resolve().parent / '_bursts.py'}:burst"]  # fmt: skip
    if max_unsent_mib is not None:
        cmd += ["--max-unsent-bytes", str(int(max_unsent_mib * 1024 * 1024))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]), "GRAPHWIRE_FORECAST_DELAY": "0.05"}
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
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (thread, request_id, how) of each durable call failed for good


class Pool:
    """Round-robin over the live replicas; a call that gets UNAVAILABLE is retried on the next one."""

    def __init__(self) -> None:
        self.clients: list[Any] = []
        self.channels: list[Any] = []  # raw channels (--durable)
        self.addresses: list[str] = []
        self.i = 0

    def next(self) -> Any:
        self.i += 1
        return self.clients[self.i % len(self.clients)]

    def next_address(self) -> str:
        self.i += 1
        return self.addresses[self.i % len(self.addresses)]

    def next_index(self) -> int:
        self.i += 1
        return self.i % len(self.addresses)


@dataclass
class BadReaders:
    """What the slow and never-reading callers saw."""

    slow: Counter[str] = field(default_factory=Counter)  # outcome of each slow reader's call
    slow_events: int = 0
    unread: list[tuple[Any, Any]] = field(default_factory=list)  # (channel, call) of each call never read
    never: Counter[str] = field(default_factory=Counter)  # outcome of each unread call, read at the end
    refused: Counter[str] = field(default_factory=Counter)  # a never-reader's new call refused, by status code
    held: list[str] = field(default_factory=list)  # refusals that failed the soak (see the module's doc), said in words


def outcome_of(e: Any) -> str:
    reason = getattr(e, "reason", None)
    return f"run {getattr(reason, 'name', reason)}"


async def slow_reader(pool: Pool, bad: BadReaders, thread: str, deadline: float, args: argparse.Namespace) -> None:
    from graphwire import GraphwireError

    size = int(args.blob_mib * 1024 * 1024)
    while time.monotonic() < deadline:
        last = None
        try:
            async for e in pool.next().stream("bulky", thread, {"size": size}, timeout=300):
                bad.slow_events += 1
                last = e
                await asyncio.sleep(args.slow_pause)
            bad.slow[outcome_of(last)] += 1
        except GraphwireError as e:
            bad.slow[e.code.name] += 1


async def never_reader(pool: Pool, bad: BadReaders, thread: str, deadline: float, args: argparse.Namespace) -> None:
    import json

    import grpc
    from graphwire_proto.v1 import graphwire_pb2 as pb
    from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

    request = pb.InvokeRequest(graph="bulky", thread_id=thread, input_json=json.dumps({"size": int(args.never_blob_mib * 1024 * 1024)}))
    for _ in range(args.never_calls):
        if time.monotonic() > deadline:
            return
        channel = grpc.aio.insecure_channel(pool.next_address(), options=STALLED)
        sent = datetime.now(timezone.utc)
        call = pb_grpc.GraphServiceStub(channel).Invoke(request, timeout=args.minutes * 60 + 300)
        try:
            first = await call.read()  # RunStarted; then nothing is read until the end
        except grpc.aio.AioRpcError as e:
            bad.refused[e.code().name] += 1
            if e.code() == grpc.StatusCode.ABORTED:
                try:
                    newest = (await pb_grpc.GraphServiceStub(channel).ListRuns(
                        pb.ListRunsRequest(graph="bulky", thread_id=thread, limit=1), timeout=60)).runs  # fmt: skip
                except grpc.aio.AioRpcError as gone:  # the replica went away since it answered
                    why = None if gone.code() == grpc.StatusCode.UNAVAILABLE and args.rolling else f"ListRuns: {gone.code().name}"
                else:
                    why = held_after_end(newest[0] if newest else None, sent)
                if why is not None:
                    bad.held.append(f"{thread}: {why}; the refusal: {e.details()}")
            elif not (e.code() == grpc.StatusCode.UNAVAILABLE and args.rolling):
                bad.held.append(f"{thread}: {e.code().name} {e.details()}")
            await channel.close()
        else:
            assert first is not grpc.aio.EOF
            bad.unread.append((channel, call))
        await asyncio.sleep(args.never_pause)  # its run ends meanwhile (it never waits for this reader)


def held_after_end(newest: Any, sent: datetime) -> str | None:
    """Why a call sent at ``sent`` and refused ABORTED shows its thread held by a finished run, or None
    when the refusal is legitimate: the thread's newest run (its ``RunInfo``) had not ended, or only just."""
    if newest is None:
        return "ABORTED on a thread with no run recorded"
    if not newest.HasField("ended_at"):
        return None  # still running (or, on a replica that died, not yet swept): it holds the thread
    ended = newest.ended_at.ToDatetime().replace(tzinfo=timezone.utc)
    if ended > sent - timedelta(seconds=HELD_AFTER_END):
        return None
    return f"its newest run {newest.run_id} ended {(sent - ended).total_seconds():.1f}s before the call was sent"


async def still_locked(replicas: list[Replica], threads: list[str]) -> list[int]:
    """Per replica, the bad readers' threads that answer ABORTED for LOCK_GRACE seconds."""
    from graphwire import Aborted, AsyncClient, GraphwireError

    locked = [0] * len(replicas)
    for i, r in enumerate(replicas):
        async with AsyncClient(r.address) as client:
            for t in threads:
                give_up = time.monotonic() + LOCK_GRACE
                while True:
                    try:
                        await client.invoke("bulky", t, {"size": 1}, timeout=60)
                        break
                    except Aborted:
                        if time.monotonic() > give_up:
                            locked[i] += 1
                            break
                        await asyncio.sleep(0.2)
                    except GraphwireError:
                        break  # another failure is not a lock; the other checks count it
    return locked


async def read_unread(bad: BadReaders) -> None:
    import grpc

    for channel, call in bad.unread:
        try:
            last = None
            while (msg := await call.read()) is not grpc.aio.EOF:
                last = msg
            bad.never[f"run {last.run_finished.reason}" if last is not None and last.HasField("run_finished") else "no RunFinished"] += 1
        except grpc.aio.AioRpcError as e:
            bad.never[e.code().name] += 1
        await channel.close()


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


async def durable_call(pool: Pool, stats: Stats, t0: float, what: str, request: Any) -> Any:
    """One logical call as a durable turn: the same request (its request_id) to replica after replica
    until it answers; counted once. The RunFinished, or None."""
    import grpc
    from graphwire_proto.v1 import graphwire_pb2 as pb
    from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

    stats.started += 1
    started = time.perf_counter()
    for attempt in range(20):
        stub = pb_grpc.GraphServiceStub(pool.channels[pool.next_index()])
        method = stub.Invoke if isinstance(request, pb.InvokeRequest) else stub.Resume
        try:
            final = None
            async for e in method(request, timeout=60):
                if e.HasField("run_finished"):
                    final = e.run_finished
        except grpc.aio.AioRpcError as e:
            if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.ABORTED):
                stats.errors[f"{what}: {e.code().name} (retried)"] += 1
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            stats.failed += 1
            stats.errors[f"{what}: {e.code().name}"] += 1
            stats.failures.append((request.thread_id, request.request_id, f"{what}: {e.code().name} {e.details()}"))
            return None
        if final is None:
            stats.errors[f"{what}: stream ended without RunFinished (retried)"] += 1
            continue
        stats.latencies[int((time.monotonic() - t0) // 60)].append(time.perf_counter() - started)
        reason = pb.FinishReason.Name(final.reason).removeprefix("FINISH_REASON_")
        if reason == "INTERRUPT":
            stats.interrupted += 1
        elif reason == "END":
            stats.finished += 1
        else:
            stats.failed += 1
            stats.errors[f"{what}: run {reason}"] += 1
        return final
    stats.failed += 1
    stats.errors[f"{what}: gave up after 20 attempts"] += 1
    stats.failures.append((request.thread_id, request.request_id, f"{what}: gave up after 20 attempts"))
    return None


async def durable_user(pool: Pool, stats: Stats, thread: str, deadline: float, max_turns: int, t0: float) -> None:
    import json

    from graphwire_proto.v1 import graphwire_pb2 as pb

    rng = random.Random(thread)
    keep = {"on_disconnect": pb.ON_DISCONNECT_CONTINUE}
    for turn in range(max_turns):
        if time.monotonic() > deadline:
            return
        remind = rng.random() < 0.5
        text = f"remind me to task {turn} of {thread} at {rng.randint(1, 12)}pm" if remind else f"weather in Oslo ({thread}, turn {turn})"
        inp = json.dumps({"messages": [{"role": "user", "content": text}]})
        r = await durable_call(pool, stats, t0, "invoke", pb.InvokeRequest(
            graph="reminders", thread_id=thread, input_json=inp, request_id=uuid.uuid4().hex, **keep))  # fmt: skip
        if r is not None and r.reason == pb.FINISH_REASON_INTERRUPT:
            done = await durable_call(pool, stats, t0, "resume", pb.ResumeRequest(
                graph="reminders", thread_id=thread, resume_json='"yes"', request_id=uuid.uuid4().hex, **keep))  # fmt: skip
            if done is not None and done.reason == pb.FINISH_REASON_END:
                stats.confirmed[thread] += 1


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


async def runs_of(replica: Replica, thread: str) -> list[Any]:
    import grpc
    from graphwire_proto.v1 import graphwire_pb2 as pb
    from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

    async with grpc.aio.insecure_channel(replica.address) as ch:
        return list((await pb_grpc.GraphServiceStub(ch).ListRuns(pb.ListRunsRequest(graph="reminders", thread_id=thread), timeout=60)).runs)


def chain_ok(versions: list[tuple[str, str | None]]) -> bool:
    """Whether a thread's versions ``(id, parent id)`` form one chain: one root, every parent stored, one child each."""
    ids = {v for v, _ in versions}
    kids = Counter(p for _, p in versions if p)
    roots = [v for v, p in versions if p is None]
    return len(roots) == 1 and all(p in ids for p in kids) and all(n == 1 for n in kids.values())


def versions_of(schema: str, graph: str, threads: list[str]) -> dict[str, list[tuple[str, str | None]]]:
    """Each thread's versions (root namespace) as ``(id, parent id)``, read from the schema in one query."""
    import psycopg
    from psycopg import sql

    out: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    with psycopg.connect(DSN, autocommit=True) as conn:
        rows = conn.execute(
            sql.SQL("SELECT thread_id, checkpoint_id, parent_checkpoint_id FROM {} WHERE checkpoint_ns = '' AND thread_id = ANY(%s)").format(
                sql.Identifier(schema, "checkpoints")),
            ([f"{graph}:{t}" for t in threads],),
        ).fetchall()  # fmt: skip
    for key, cid, parent in rows:
        out[key.partition(":")[2]].append((cid, parent))
    return out


async def main_async(args: argparse.Namespace) -> int:
    import tempfile

    import psycopg
    from graphwire import AsyncClient

    schema = f"soak_{uuid.uuid4().hex[:8]}"
    work = Path(tempfile.mkdtemp(prefix="gw-soak-"))
    replicas = [start_replica(schema, work, args.max_unsent_mib), start_replica(schema, work, args.max_unsent_mib)]
    every = list(replicas)  # also those rolled away, for their peak RSS
    pool = Pool()
    pool.clients = [AsyncClient(r.address) for r in replicas]
    pool.addresses = [r.address for r in replicas]
    import grpc

    pool.channels = [grpc.aio.insecure_channel(r.address) for r in replicas]
    bad = BadReaders()
    stats = Stats()
    t0 = time.monotonic()
    deadline = t0 + args.minutes * 60
    rss: dict[int, list[int]] = {}

    async def sample() -> None:
        while time.monotonic() < deadline:
            minute = int((time.monotonic() - t0) // 60)
            rss[minute] = [r.rss_kib() for r in replicas]
            await asyncio.sleep(1)

    async def rolling() -> None:
        await asyncio.sleep(args.minutes * 30)
        old = replicas[0]
        # SIGTERM drains: callers on it get UNAVAILABLE and retry elsewhere. SIGKILL: its runs die mid-step.
        old.proc.send_signal(signal.SIGKILL if args.kill else signal.SIGTERM)
        await asyncio.get_running_loop().run_in_executor(None, old.proc.wait)
        new = await asyncio.get_running_loop().run_in_executor(None, start_replica, schema, work, args.max_unsent_mib)
        replicas[0] = new
        every.append(new)
        pool.clients[0] = AsyncClient(new.address)
        pool.addresses[0] = new.address
        pool.channels[0] = grpc.aio.insecure_channel(new.address)
        print(f"  rolled replica 0 at {time.monotonic() - t0:.1f}s: exit {old.proc.returncode}, new one on {new.address}", flush=True)

    threads = [f"soak-{i}" for i in range(args.threads)]
    tasks = [asyncio.ensure_future(sample())]
    if args.rolling:
        tasks.append(asyncio.ensure_future(rolling()))
    slow = [f"soak-slow-{i}" for i in range(args.slow_readers)]
    never = [] if args.bursts else [f"soak-never-{i}" for i in range(args.never_readers)]
    turns = durable_user if args.durable else user
    bursting = asyncio.ensure_future(burst_rounds(replicas, args)) if args.bursts else None
    await asyncio.gather(
        *(turns(pool, stats, t, deadline, args.max_turns, t0) for t in threads),
        *(slow_reader(pool, bad, t, deadline, args) for t in slow),
        *(never_reader(pool, bad, t, deadline, args) for t in never),
    )
    bursts = await bursting if bursting is not None else None
    ended = time.monotonic()
    for r in replicas:
        r.rss_kib()
    # Every bad reader's thread, on every replica, while the unread calls are still open.
    locked = await still_locked(replicas, slow + never)
    held = [r.rss_kib() for r in replicas]  # the runs are over; the unread calls are still open
    await read_unread(bad)
    read = time.monotonic()
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

    lost: list[str] = []
    twice: list[tuple[str, str]] = []
    active: list[Any] = []
    versions = versions_of(schema, "reminders", threads)
    async with AsyncClient(replicas[1].address) as client:
        for t in threads:
            if not versions[t]:
                continue
            state = await client.get_state("reminders", t, timeout=60)
            if not chain_ok(versions[t]) or len(state.values.get("reminders", [])) != stats.confirmed[t]:
                lost.append(t)
            if args.durable:  # only durable users' turns are unique ("weather in Oslo" is asked again and again)
                said = Counter(m["content"] for m in state.values.get("messages", []) if m.get("type") in ("human", "user") or m.get("role") == "user")
                twice += [(t, text) for text, n in said.items() if n > 1]
                active += [r for r in await runs_of(replicas[1], t) if r.status in (1, 2, 7)]  # pending, running, recovering
    for t, request_id, how in stats.failures:
        mine = [r for r in await runs_of(replicas[1], t) if r.request_id == request_id]
        print(f"  failed for good: {t} request {request_id}: {how}; its runs: " + ("; ".join(
            f"{r.run_id} status {r.status} attempts {r.attempts} replica {r.replica} last_seq {r.last_seq}"
            f"{'' if r.HasField('ended_at') else ' (not ended)'}" for r in mine) or "none"))  # fmt: skip
    print(f"end phase: {ended - t0 - args.minutes * 60:.1f}s past the deadline for the last calls, {read - ended:.1f}s checking locks "
          f"and reading the unread calls, {time.monotonic() - read:.1f}s checking the threads")
    print(f"threads checked {len(threads)}: {'nothing lost' if not lost else f'{len(lost)} with a problem: {lost[:5]}'}")
    print(f"user messages applied twice: {len(twice)}{f' {twice[:3]}' if twice else ''}")
    if args.durable:
        print(f"runs left pending, running or recovering: {len(active)}{f' {[r.run_id for r in active[:3]]}' if active else ''}")
    if slow or never:
        print(f"bad readers on bulky: {len(slow)} slow (blob {args.blob_mib:g} MiB, one event per {args.slow_pause:g} s), "
              f"{len(never)} never reading (blob {args.never_blob_mib:g} MiB)")
        print(f"  slow readers: {sum(bad.slow.values())} calls, {bad.slow_events} events read: {dict(bad.slow)}")
        print(f"  never readers: {len(bad.unread)} calls left unread, then read: {dict(bad.never)}; "
              f"new calls refused while earlier ones were unread: {dict(bad.refused) or 0}, "
              f"of which by a thread held after its run ended (or another failure): {len(bad.held)}")
        for why in bad.held:
            print(f"    {why}")
    if bursts is not None:
        bursts.print([r.address for r in replicas])
    for r in every:
        live = r in replicas
        n = locked[replicas.index(r)] if live else None
        print(f"  replica {r.address}{'' if live else ' (rolled away)'}: peak RSS {r.peak_kib / 1024:.1f} MiB"
              + (f", {held[replicas.index(r)] / 1024:.1f} MiB with the unread calls still open after their runs, "
                 f"threads still locked after their runs ended: {n}" if live else ""))
    for c in pool.clients:
        await c.close()
    for r in replicas:
        r.proc.send_signal(signal.SIGTERM)
        r.proc.wait(30)
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    for ch in pool.channels:
        await ch.close()
    ok = reconciled and not lost and not twice and not active and not any(locked) and not bad.held and (bursts is None or bursts.ok())
    return 0 if ok and not (args.durable and stats.failures) else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--minutes", type=float, default=2.0)
    p.add_argument("--max-turns", type=int, default=10_000, help="per thread; bounds the run by count too")
    p.add_argument("--rolling", action="store_true", help="SIGTERM one replica halfway and start a new one")
    p.add_argument("--durable", action="store_true", help="user calls are durable turns: request_id and on_disconnect=CONTINUE")
    p.add_argument("--kill", action="store_true", help="--rolling with SIGKILL instead of SIGTERM")
    p.add_argument("--slow-readers", type=int, default=2, help="callers reading one event per --slow-pause")
    p.add_argument("--slow-pause", type=float, default=0.2, help="seconds a slow reader waits between events")
    p.add_argument("--blob-mib", type=float, default=1.0, help="a slow reader's bulky state, MiB")
    p.add_argument("--never-readers", type=int, default=2, help="callers that never read their streams")
    p.add_argument("--never-blob-mib", type=float, default=4.0, help="a never-reader's bulky state, MiB (4: past the budget)")
    p.add_argument("--never-calls", type=int, default=3, help="unread calls each never-reader leaves open")
    p.add_argument("--never-pause", type=float, default=2.0, help="seconds between a never-reader's calls")
    p.add_argument("--max-unsent-mib", type=float, default=None, help="the replicas' max_unsent_bytes, MiB (default: theirs, 32)")
    p.add_argument("--bursts", action="store_true", help="never-readers call the bursting graph, in rounds (bench/_bursts.py)")
    p.add_argument("--rounds", type=int, default=5, help="--bursts: rounds of unread calls")
    p.add_argument("--burst-mib", type=float, default=140.0, help="--bursts: MiB of custom events each run writes")
    p.add_argument("--burst-event-bytes", type=int, default=1000, help="--bursts: characters per event")
    p.add_argument("--burst-warmup", type=float, default=30.0, help="--bursts: seconds of the other load before the RSS before")
    p.add_argument("--settle", type=float, default=2.0, help="--bursts: seconds after a round's calls ended before the RSS after")
    args = p.parse_args()
    if args.bursts and args.rolling:
        p.error("--bursts measures each replica from its first round: not with --rolling")
    if args.bursts and args.max_unsent_mib is None:
        args.max_unsent_mib = 32.0  # the replicas' default, for the budgets
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
