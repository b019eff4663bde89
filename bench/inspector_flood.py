"""A flood of half-sent requests against a server's inspector port (or its gRPC port), and what gRPC calls see.

Starts ``graphwire serve`` (SQLite in a temporary directory, the inspector on
127.0.0.1:0, the reminders demo) in a process that may open ``--nofile``
descriptors, then: health checks and Invokes with nobody flooding; opens
``--flood`` connections that each send half a request line (``GET /api/gra``
to the inspector, or the first bytes of the HTTP/2 preface to the gRPC
port) and holds them; the same calls while they are held; and how long the
server takes to close what it held. Every health check and Invoke goes on a
new connection (a channel of its own that shares no connection with
another), as a load balancer's probe does, so each needs a descriptor of
the server's. Prints figures; asserts nothing.

    python bench/inspector_flood.py                       # 1,100 connections at a 1,024-descriptor server's inspector
    python bench/inspector_flood.py --nofile 256 --flood 300
    python bench/inspector_flood.py --target grpc --watch 90   # the gRPC port: held until gRPC's handshake deadline
    python bench/inspector_flood.py -- --inspector-request-seconds 3   # after --: flags for graphwire serve
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FRESH = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own for each call
PAYLOADS = {"inspector": b"GET /api/gra", "grpc": b"PRI * HTTP"}


def _start(workdir: str, nofile: int, serve_args: list[str]) -> tuple[subprocess.Popen[bytes], str, tuple[str, int], Path]:
    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    log = Path(workdir) / "server.log"
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", f"{workdir}/gw.db",
           "--inspector", "127.0.0.1:0", *serve_args]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with open(log, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=err, preexec_fn=lower)
    assert proc.stdout is not None
    inspector = address = None
    while address is None:
        line = proc.stdout.readline().decode()
        if not line:
            raise SystemExit(f"the server did not start:\n{log.read_text()}")
        if line.startswith("graphwire inspector on "):
            found = re.match(r"https?://([^/]+):(\d+)/", line.split()[-1])
            assert found is not None
            inspector = (found.group(1), int(found.group(2)))
        if line.startswith("graphwire listening on "):
            address = line.split()[-1]
    assert inspector is not None
    return proc, address, inspector, log


def _descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _calls(address: str, n: int) -> dict[str, Any]:
    """``n`` health checks then ``n`` Invokes, each on a new connection: failures and latency (ms)."""
    import grpc
    from graphwire import Client, GraphwireError
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    out: dict[str, Any] = {}
    for kind in ("health", "invoke"):
        took, failed = [], 0
        for _ in range(n):
            t0 = time.perf_counter()
            try:
                if kind == "health":
                    with grpc.insecure_channel(address, options=FRESH) as ch:
                        health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=3)
                else:
                    with Client(address, options=FRESH) as client:
                        client.invoke("reminders", f"b-{uuid.uuid4().hex[:8]}", {"messages": [{"role": "user", "content": "hi"}]},
                                      timeout=3)  # fmt: skip
                took.append((time.perf_counter() - t0) * 1000)
            except (grpc.RpcError, GraphwireError):
                failed += 1
        out[kind] = (failed, took)
    return out


def _show(label: str, calls: dict[str, Any]) -> None:
    for kind, (failed, took) in calls.items():
        if took:
            q = statistics.quantiles(took, n=20) if len(took) > 1 else took * 19
            figures = f"p50 {statistics.median(took):6.1f} ms  p95 {q[18]:6.1f} ms"
        else:
            figures = "-"
        print(f"  {label:<22} {kind:<7} {len(took):4d} ok {failed:4d} failed   {figures}")


def _flood(host: str, port: int, n: int, payload: bytes) -> tuple[list[socket.socket], int]:
    socks, failed = [], 0
    for _ in range(n):
        sock = socket.socket()
        sock.settimeout(5)
        try:
            sock.connect((host, port))
            sock.send(payload)
        except OSError:
            sock.close()
            failed += 1
            continue
        sock.setblocking(False)
        socks.append(sock)
    return socks, failed


def _ended(sock: socket.socket, seen: dict[int, bytes]) -> bool:
    try:
        data = sock.recv(4096, socket.MSG_PEEK)
    except BlockingIOError:
        return False
    except OSError:
        return True
    if not data:
        return True
    seen.setdefault(sock.fileno(), data[:12])
    try:
        while sock.recv(4096):
            pass
    except BlockingIOError:
        return False
    except OSError:
        pass
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nofile", type=int, default=1024, help="the server's descriptor limit (default 1024)")
    p.add_argument("--flood", type=int, default=1100, help="half-sent requests to open (default 1100, as in issue 28)")
    p.add_argument("--target", choices=("inspector", "grpc"), default="inspector")
    p.add_argument("--calls", type=int, default=50, help="health checks and Invokes per phase (default 50)")
    p.add_argument("--watch", type=float, default=60.0, help="seconds from the flood's start to wait for the server to close it (default 60)")
    p.add_argument("serve_args", nargs="*", help="after --: more flags for graphwire serve")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as workdir:
        proc, address, inspector, log = _start(workdir, args.nofile, args.serve_args)
        try:
            _run(args, proc, address, inspector, log)
        finally:
            proc.terminate()
            proc.wait(30)


def _run(args: argparse.Namespace, proc: subprocess.Popen[bytes], address: str, inspector: tuple[str, int], log: Path) -> None:
    cap = re.search(r"at most (\d+) connections at once", log.read_text())
    print(f"server: RLIMIT_NOFILE {args.nofile}, {_descriptors(proc.pid)} descriptors open at start; "
          f"inspector limit {cap.group(1) + ' (capped by descriptors)' if cap else 'as configured'}")  # fmt: skip
    _show("no flood", _calls(address, args.calls))
    host, port = inspector if args.target == "inspector" else (address.rsplit(":", 1)[0], int(address.rsplit(":", 1)[1]))
    t0 = time.monotonic()
    socks, failed = _flood(host, port, args.flood, PAYLOADS[args.target])
    opened = time.monotonic()
    print(f"flood: {len(socks)} connections to the {args.target} port opened in {opened - t0:.1f} s ({failed} could not connect); "
          f"server holds {_descriptors(proc.pid)} descriptors")  # fmt: skip
    _show("flood held", _calls(address, args.calls))
    seen: dict[int, bytes] = {}
    early = sum(_ended(s, seen) for s in socks)
    print(f"  after the calls ({time.monotonic() - opened:.1f} s): {early} of {len(socks)} closed by the server "
          f"({sum(1 for v in seen.values() if v.startswith(b'HTTP/1.1 503'))} with 503)")  # fmt: skip
    open_socks = [s for s in socks if not _ended(s, seen)]
    while open_socks and time.monotonic() - t0 < args.watch:
        time.sleep(0.05)  # sampling the sockets' state
        open_socks = [s for s in open_socks if not _ended(s, seen)]
    done = time.monotonic() - t0
    if open_socks:
        print(f"  {len(open_socks)} still held {args.watch:.0f} s after the flood began")
    else:
        print(f"  every flood connection closed by the server {done:.1f} s after the flood began "
              f"({sum(1 for v in seen.values() if v.startswith(b'HTTP/1.1 408'))} with 408)")  # fmt: skip
    _show("after", _calls(address, args.calls))
    for s in socks:
        s.close()


if __name__ == "__main__":
    main()
