"""Processes for the peers bench (bench/peers.py, bench/http_vs_langgraph_dev.py): starting a server,
its process tree's CPU, the CPU of its PostgreSQL backends, a database of its own, and a venv of its own.

Nothing here sleeps to synchronise but the readiness poll of a peer that
prints no line when it listens (``langgraph dev``, Aegra): a bounded loop of
short HTTP GETs, as a user's health check would do.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench.grpc_throughput import read_until

ROOT = Path(__file__).resolve().parent.parent
APP = Path(__file__).resolve().parent / "peers_app"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "graphwire-bench" / "peers"
START_SECONDS = 90.0
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Served:
    """A server the bench started: its process, where to call it, and its own database (PostgreSQL) if any."""

    name: str
    popen: subprocess.Popen[bytes]
    target: str  # host:port (gRPC) or http://host:port
    log: Path
    database: str | None = None
    lines: list[str] = field(default_factory=list)

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            return self.popen.wait()

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def graphwire_env() -> dict[str, str]:
    """The environment of a ``python -m server`` child: the repository first on the import path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PYTHONUNBUFFERED"] = "1"
    return env


def app_copy(tmp: Path, name: str) -> Path:
    """A fresh copy of bench/peers_app under ``tmp`` for one server start: what a server writes beside its
    project (``langgraph dev`` keeps its in-memory state in ``.langgraph_api/`` and reloads it at start)
    stays out of the repository and out of the next start."""
    for n in range(1000):
        copy = tmp / f"app-{name.replace(' ', '-')}-{n}"
        if not copy.exists():
            shutil.copytree(APP, copy, ignore=shutil.ignore_patterns("__pycache__", ".langgraph_api"))
            return copy
    raise RuntimeError(f"too many copies of {APP} in {tmp}")


def start_marked(name: str, cmd: list[str], env: dict[str, str], log: Path, marker: str, cwd: Path) -> Served:
    """Start ``cmd`` in ``cwd``; read its stdout until a line starting with ``marker``
    (its rest is the target); earlier lines are kept in ``lines``."""
    with open(log, "wb") as err:
        popen = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=err)
    target, seen = read_until(popen, marker, START_SECONDS, log, name)
    return Served(name, popen, target, log, lines=seen)


def start_polled(name: str, cmd: list[str], env: dict[str, str], log: Path, url: str, probe: str, cwd: Path,
                 database: str | None = None) -> Served:  # fmt: skip
    """Start ``cmd`` in ``cwd`` (output to ``log``); poll ``url + probe`` until it answers 200."""
    with open(log, "wb") as out:
        popen = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Served(name, popen, url, log, database)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            raise RuntimeError(f"{name} exited with {popen.returncode}:\n{served.tail()}")
        try:
            with urllib.request.urlopen(url + probe, timeout=2) as answer:
                if answer.status == 200:
                    return served
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    served.stop()
    raise RuntimeError(f"{name} did not answer {probe} in {START_SECONDS:g}s:\n{served.tail()}")


# -- CPU ---------------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid``, its live descendants, and the children it has reaped."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    own = sum(int(fields[i]) for i in (11, 12, 13, 14)) / _TICK  # utime, stime, cutime, cstime
    return own + sum(tree_cpu(c) for c in _children(pid))


def pids_cpu(pids: list[int]) -> dict[int, float]:
    """CPU seconds of each live pid (user + system)."""
    out = {}
    for pid in pids:
        fields = _stat(pid)
        if fields is not None:
            out[pid] = (int(fields[11]) + int(fields[12])) / _TICK
    return out


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# -- PostgreSQL --------------------------------------------------------------------------


def pg_reachable(dsn: str) -> str | None:
    """None, or why ``dsn`` cannot be reached (one line)."""
    import psycopg

    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=5):
            return None
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0]


def pg_create(dsn: str, name: str) -> str:
    """A new database ``name`` on ``dsn``'s server; the DSN that reaches it."""
    import psycopg
    from psycopg import conninfo, sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return conninfo.make_conninfo(dsn, dbname=name)


def pg_drop(dsn: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def pg_backends(dsn: str, database: str) -> list[int]:
    """The pids of the backends connected to ``database`` (the server's connections; the bench makes none there)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)).fetchall()
    return [int(r[0]) for r in rows]


def as_url(dsn: str) -> str:
    """``dsn`` as a postgresql:// URL (what Aegra's DATABASE_URL takes)."""
    from psycopg import conninfo

    parts = conninfo.conninfo_to_dict(dsn)
    user = parts.get("user") or "postgres"
    auth = f"{user}:{parts['password']}" if parts.get("password") else user
    return f"postgresql://{auth}@{parts.get('host') or '127.0.0.1'}:{parts.get('port') or 5432}/{parts['dbname']}"


# -- venvs -------------------------------------------------------------------------------


def venv(name: str, packages: list[str], install: bool) -> tuple[Path | None, str]:
    """A venv of its own under the cache directory with ``packages`` installed: (its bin/, "") or (None, why not).

    Installed once (a marker file names what was installed); ``install=False`` only finds it."""
    home = CACHE / name
    marker, wanted = home / ".installed", "\n".join(packages)
    if marker.exists() and marker.read_text() == wanted:
        return home / "bin", ""
    if not install:
        return None, f"not installed in {home} (run without --no-install)"
    home.parent.mkdir(parents=True, exist_ok=True)
    log = home.parent / f"{name}-install.log"
    print(f"installing {' '.join(packages)} into {home} (once; log {log})", file=sys.stderr, flush=True)
    with open(log, "wb") as out:
        made = subprocess.run([sys.executable, "-m", "venv", str(home)], stdout=out, stderr=subprocess.STDOUT, check=False)
        if made.returncode == 0:
            made = subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", *packages],
                                  stdout=out, stderr=subprocess.STDOUT, check=False)  # fmt: skip
    if made.returncode != 0:
        errors = [ln for ln in log.read_text(errors="replace").splitlines() if ln.startswith("ERROR")]
        return None, f"pip install failed: {(errors or ['see ' + str(log)])[-1]}"
    marker.write_text(wanted)
    return home / "bin", ""
