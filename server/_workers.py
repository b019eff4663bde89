"""``graphwire serve --workers N``: N server processes on one address, so a host's every core serves.

The command becomes a parent that serves nothing itself. It starts N workers,
each ``graphwire serve`` again (the same interpreter and command line, so a
launcher such as ``python -m tests.replicas._serve`` stays in place) with the
environment variable :data:`WORKER_ENV` naming its slot. Each worker is a
replica as any other on the PostgreSQL database: its own replica id, leases,
recovery sweeper and health service. The workers listen on one port with
``SO_REUSEPORT``, so the kernel hands each new connection to one of them (a
connection stays with its worker for its life: a client reaches several
workers through several connections, see the clients' ``channels``). With
one worker there is no parent and the port is not shared: a second server
started by mistake on the same address still fails with "port already in
use".

- **Port 0.** The parent reserves a free port first (a socket bound with
  ``SO_REUSEPORT``, never listening, so it takes no connections) and every
  worker binds that one.
- **Start.** A worker's stdout is a pipe to the parent, which passes its lines
  on but the ``graphwire listening on`` one; once every worker said it, the
  parent prints ``graphwire workers: N, pids …`` and one such line. A worker that fails
  to start stops the others, and the parent exits with its status.
- **Stop.** SIGTERM or SIGINT to the parent goes to every worker, which drains
  as a single server does (a durable run still going at the end of the grace
  period is left for recovery); the parent exits 0 when every worker did, else
  with the first other status (128 + N for a worker ended by signal N).
- **A worker that dies** is not restarted: its leases go with its database
  session, so the others recover its runs as replicas do (``max_run_attempts``).
  The parent says so and serves on while one worker is left.
- **The parent killed outright** (SIGKILL): each worker holds the read end of a
  pipe the parent keeps open; at its end the worker kills itself, so the whole
  server goes as one process would, and its runs are recovered by other replicas.
- **The inspector** is served by worker 0 alone: its thread list and run
  records come from the database (every worker's), its live event streams from
  worker 0's own runs. Health is per worker (each answers for itself).
- **LangGraph's HTTP API** (``--http``) is served by worker 0 alone too, for
  now: it reads and writes through the database, so every worker's threads
  and runs are there, but its calls use one core. The hook for more:
  :func:`worker_config` keeps ``http`` for every worker, and
  :func:`server._web.bind` binds its port with ``SO_REUSEPORT`` when the
  worker's gRPC port is shared (``build_server``'s ``shared_port``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from server.config import ServerConfig

__all__ = ["WORKER_ENV", "WorkerSlot", "run_workers", "worker_config", "worker_slot", "watch_parent"]

log = logging.getLogger("graphwire.workers")
#: Set by the parent for each worker: ``INDEX/COUNT/PORT/FD`` (FD: the read end of the parent's life pipe).
WORKER_ENV = "GRAPHWIRE_WORKER_SLOT"
LISTENING = "graphwire listening on "


@dataclass(frozen=True)
class WorkerSlot:
    """What a worker process is told by its parent."""

    index: int
    count: int
    port: int
    life_fd: int


def worker_slot(environ: dict[str, str] | None = None) -> WorkerSlot | None:
    """This process's slot when a parent started it as a worker, else None."""
    text = (os.environ if environ is None else environ).get(WORKER_ENV)
    if not text:
        return None
    index, count, port, fd = (int(part) for part in text.split("/"))
    return WorkerSlot(index, count, port, fd)


def worker_config(config: ServerConfig, slot: WorkerSlot) -> ServerConfig:
    """A worker's configuration: the parent's port, one process, the web ports (inspector, HTTP API) on worker 0 only."""
    host = config.address.rsplit(":", 1)[0]
    first = slot.index == 0
    return dataclasses.replace(
        config, address=f"{host}:{slot.port}", workers=1, inspector=config.inspector if first else None,
        http=config.http if first else None,
    )  # fmt: skip


def watch_parent(slot: WorkerSlot) -> None:
    """Kill this worker when its parent is gone without stopping it (the life pipe's end)."""

    def wait() -> None:
        with os.fdopen(slot.life_fd, "rb") as pipe:
            pipe.read()
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=wait, name="graphwire-parent-watch", daemon=True).start()


def _reserve_port(config: ServerConfig) -> tuple[socket.socket | None, int]:
    """The port every worker binds: the configured one, or (port 0) a free one held by a non-listening socket."""
    host, _, port_text = config.address.rpartition(":")
    port = int(port_text)
    if port != 0:
        return None, port
    family, kind, proto, _, sockaddr = socket.getaddrinfo(
        host.strip("[]") or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(sockaddr)
    return sock, sock.getsockname()[1]


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _forward(index: int, stream: IO[str], lines: queue.Queue[tuple[int, str | None]]) -> None:
    for line in stream:
        lines.put((index, line))
    lines.put((index, None))


class _Parent:
    def __init__(self, config: ServerConfig, count: int) -> None:
        self.config = config
        self.count = count
        self.procs: dict[int, tuple[int, subprocess.Popen[str]]] = {}  # pid -> (index, process)
        self.lines: queue.Queue[tuple[int, str | None]] = queue.Queue()
        self.stopping = False

    def start(self, port: int, life_r: int, argv: Sequence[str]) -> None:
        # The command line again (a launcher's `-m` kept), unless the CLI was called from a program with other arguments.
        command = [sys.executable, *sys.orig_argv[1:]] if sys.argv[1:] == list(argv) else [sys.executable, "-m", "server", *argv]
        for index in range(self.count):
            env = dict(os.environ, **{WORKER_ENV: f"{index}/{self.count}/{port}/{life_r}"})
            proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True, pass_fds=(life_r,))
            self.procs[proc.pid] = (index, proc)
            assert proc.stdout is not None
            threading.Thread(target=_forward, args=(index, proc.stdout, self.lines), daemon=True).start()

    def signal_all(self, signum: int) -> None:
        for _, proc in self.procs.values():
            if proc.returncode is None:
                try:
                    proc.send_signal(signum)
                except ProcessLookupError:
                    pass

    def stop(self, signum: int, _frame: object) -> None:
        self.stopping = True
        log.info("stopping: %s sent to %d worker(s), each drains its runs", signal.Signals(signum).name, len(self.procs))
        self.signal_all(signal.SIGTERM)

    def wait_ready(self) -> int | None:
        """Pass the workers' lines on until each said it listens; None, or the status of one that ended first."""
        ready: set[int] = set()
        while len(ready) < self.count and not self.stopping:
            try:
                index, line = self.lines.get(timeout=0.5)  # wakes to notice a stop; no ordering depends on it
            except queue.Empty:
                continue
            if line is None:
                pid = next(p for p, (i, _) in self.procs.items() if i == index)
                status = self.procs[pid][1].wait()
                log.error("worker %d (pid %d) ended before it served (status %d): stopping the others", index, pid, status)
                return 128 - status if status < 0 else status or 1
            if line.startswith(LISTENING):
                ready.add(index)
            else:
                print(line, end="", flush=True)
        return None

    def wait_all(self) -> int:
        first_failure = 0
        live = sum(proc.returncode is None for _, proc in self.procs.values())  # one that failed its start is reaped
        while live:
            pid, status = os.wait()
            if pid not in self.procs:
                continue
            index, proc = self.procs[pid]
            proc.returncode = code = _exit_code(status)
            live -= 1
            first_failure = first_failure or code
            if not self.stopping:
                log.warning(
                    "worker %d (pid %d) exited with status %d; not restarted: its runs are recovered by the %d other worker(s)",
                    index, pid, code, live,
                )  # fmt: skip
        return first_failure


def run_workers(config: ServerConfig, count: int, argv: Sequence[str]) -> int:
    """Start ``count`` workers serving ``config`` (``argv``: the command's arguments), wait for them all to end;
    the exit status (see the module's doc)."""
    reserved, port = _reserve_port(config)
    life_r, life_w = os.pipe()
    parent = _Parent(config, count)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, parent.stop)
    try:
        parent.start(port, life_r, argv)
        os.close(life_r)
        failed = parent.wait_ready()
        if failed is not None:
            parent.stopping = True
            parent.signal_all(signal.SIGTERM)
            parent.wait_all()
            return failed
        if not parent.stopping:
            host = config.address.rsplit(":", 1)[0]
            pids = ", ".join(str(pid) for pid in parent.procs)
            log.info(
                "%d workers on %s:%d (pids %s), each a replica on the database; a worker that dies is not restarted, "
                "its runs are recovered by the others; the inspector, if any, is served by worker 0",
                count, host, port, pids,
            )  # fmt: skip
            print(f"graphwire workers: {count}, pids {pids}", flush=True)
            print(f"{LISTENING}{host}:{port}", flush=True)
            threading.Thread(target=_pass_on, args=(parent.lines,), daemon=True).start()
        return parent.wait_all()
    finally:
        os.close(life_w)
        if reserved is not None:
            reserved.close()


def _pass_on(lines: queue.Queue[tuple[int, str | None]]) -> None:
    while True:
        _, line = lines.get()
        if line is not None:
            print(line, end="", flush=True)
