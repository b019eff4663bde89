"""Callers that never read a bursting run, round after round: ``bench/soak.py --never-readers N --bursts``.

The graph is ``burst`` (defined here): one sync node writes ``--burst-mib``
of custom events of ``--burst-event-bytes`` each in a tight loop, as a
model's token stream does. Each round, every replica gets N calls of it
whose callers read RunStarted and then nothing (their channels have HTTP/2
BDP probing off, so the transport takes only its 64 KiB window). A round
ends once every run's record ended and each call's outcome was read (a
caller past ``max_unsent_bytes`` is cut off: RESOURCE_EXHAUSTED), then
``--settle`` seconds for what the calls held to be given back.

Per round and replica it prints the peak RSS (``VmHWM``, started again at
each round; where the system does not allow that, the most RSS sampled) and
the RSS once the calls ended, against the RSS before the first round:

* the peak must stay within the round's budgets (N x ``max_unsent_bytes``)
  plus :data:`FIXED_OVERHEAD_MIB`, whatever the burst's size;
* after each round the RSS must be within :data:`COME_BACK` (10%) of where
  it was before the first.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: What a replica may hold beyond the budgets of its unread calls while their bursts run.
FIXED_OVERHEAD_MIB = 32
#: How far above its RSS before the first round a replica may be once a round's calls ended.
COME_BACK = 0.10
#: A never-reader's channel: no BDP probing, so HTTP/2 buffers no more than its initial window.
STALLED = [("grpc.http2.bdp_probe", 0), ("grpc.max_receive_message_length", 64 * 1024 * 1024)]


def burst() -> Any:
    """START → stream → END; ``stream`` writes ``count`` custom events of ``size`` characters, as fast as it can."""
    from typing import TypedDict

    from engine import END, START, StateGraph, get_stream_writer

    class Burst(TypedDict, total=False):
        count: int
        size: int
        n: int

    def stream(state: Burst) -> dict[str, Any]:
        write = get_stream_writer()
        token = "t" * state.get("size", 1000)
        for i in range(state.get("count", 1000)):
            write({"i": i, "token": token})
        return {"n": state.get("count", 1000)}

    g = StateGraph(Burst)
    g.add_node("stream", stream)
    g.add_edge(START, "stream")
    g.add_edge("stream", END)
    return g


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _reset_peak(pid: int) -> bool:
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM starts again from VmRSS
    except OSError:
        return False
    return True


@dataclass
class Round:
    peak_kib: list[int]  # per replica
    after_kib: list[int]
    outcomes: Counter[str] = field(default_factory=Counter)


@dataclass
class Bursts:
    """What the rounds measured."""

    budget_mib: float  # one replica's unread calls' budgets together
    before_kib: list[int] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    def ok(self) -> bool:
        return bool(self.rounds) and all(
            peak - before <= (self.budget_mib + FIXED_OVERHEAD_MIB) * 1024 and after <= before * (1 + COME_BACK)
            for r in self.rounds for peak, after, before in zip(r.peak_kib, r.after_kib, self.before_kib)
        )  # fmt: skip

    def print(self, addresses: list[str]) -> None:
        print(f"bursts: {len(self.rounds)} rounds; per replica: budgets {self.budget_mib:g} MiB + {FIXED_OVERHEAD_MIB} MiB "
              f"fixed overhead for the peak, {COME_BACK:.0%} above the RSS before the first round for after")
        for i, address in enumerate(addresses):
            before = self.before_kib[i] / 1024
            print(f"  replica {address}: RSS {before:.1f} MiB before the first round (peak bound {before + self.budget_mib + FIXED_OVERHEAD_MIB:.1f}, "
                  f"after bound {before * (1 + COME_BACK):.1f})")
            for n, r in enumerate(self.rounds):
                print(f"    round {n + 1}: peak {r.peak_kib[i] / 1024:.1f} MiB, {r.after_kib[i] / 1024:.1f} MiB after the calls ended"
                      f"{'' if i else f'; calls: {dict(r.outcomes)}'}")
        print(f"  bursts within bounds: {'yes' if self.ok() else 'NO'}")


async def burst_rounds(replicas: list[Any], args: Any) -> Bursts:
    """``args.rounds`` rounds of ``args.never_readers`` unread burst calls on each replica (see the module)."""
    import grpc
    from graphwire_proto.v1 import graphwire_pb2 as pb
    from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

    count = int(args.burst_mib * 1024 * 1024 // args.burst_event_bytes)
    inp = json.dumps({"count": count, "size": args.burst_event_bytes})
    out = Bursts(budget_mib=args.never_readers * args.max_unsent_mib)
    await asyncio.sleep(args.burst_warmup)  # the chat users' load is under way: that is the RSS before
    out.before_kib = [r.rss_kib() for r in replicas]
    for n in range(args.rounds):
        exact = [_reset_peak(r.proc.pid) for r in replicas]
        most = [r.rss_kib() for r in replicas]
        calls: list[tuple[int, str, Any, Any]] = []
        for i, r in enumerate(replicas):
            for k in range(args.never_readers):
                tid = f"soak-burst-{n}-{i}-{k}"
                channel = grpc.aio.insecure_channel(r.address, options=STALLED)
                call = pb_grpc.GraphServiceStub(channel).Invoke(pb.InvokeRequest(graph="burst", thread_id=tid, input_json=inp), timeout=600)
                await call.read()  # RunStarted; then nothing until the run ended
                calls.append((i, tid, channel, call))
        give_up = time.monotonic() + 600
        while True:
            most = [max(m, r.rss_kib()) for m, r in zip(most, replicas)]
            runs = [(await pb_grpc.GraphServiceStub(ch).ListRuns(pb.ListRunsRequest(graph="burst", thread_id=tid, limit=1), timeout=60)).runs
                    for _, tid, ch, _ in calls]  # fmt: skip
            if all(rs and rs[0].HasField("ended_at") for rs in runs) or time.monotonic() > give_up:
                break
            await asyncio.sleep(0.2)
        outcomes: Counter[str] = Counter()
        for _, _, channel, call in calls:
            try:
                while (await call.read()) is not grpc.aio.EOF:
                    pass
                outcomes["OK"] += 1
            except grpc.aio.AioRpcError as e:
                outcomes[e.code().name] += 1
            await channel.close()
        await asyncio.sleep(args.settle)
        peaks = [max(m, _peak_kib(r.proc.pid) if e else 0) for m, r, e in zip(most, replicas, exact)]
        out.rounds.append(Round(peaks, [r.rss_kib() for r in replicas], outcomes))
        print(f"  burst round {n + 1}: peak RSS {[p // 1024 for p in peaks]} MiB, "
              f"{[a // 1024 for a in out.rounds[-1].after_kib]} MiB after the calls ended; {dict(outcomes)}", flush=True)
    return out
