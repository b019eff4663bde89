"""Real server processes for tests/server and tests/e2e.

``server`` (session-scoped) is one ``python -m server serve`` on 127.0.0.1
with an ephemeral port and a SQLite file, serving the reminders example and
the graphs of ``tests/graphs.py``. Tests that share it use their own thread
ids (the ``thread_id`` fixture), so they do not interfere. ``start_server``
starts more (auth on, a small message limit, a short grace, the same SQLite
file after a SIGKILL, the inspector page on, PostgreSQL in a given schema
with short leases); each is stopped at the end of its test.

No sleeps: a start reads the server's stdout until its "listening" line,
then waits for the gRPC health check to answer SERVING, both with a deadline.
"""

from __future__ import annotations

import os
import shutil
import selectors
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import _no_langchain

if _no_langchain.hidden():
    _no_langchain.hide()  # before anything imports langchain_core

import grpc  # noqa: E402
import pytest  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

from server.config import SETTINGS_KEYS

ROOT = Path(__file__).resolve().parent.parent
#: Every graph a test server runs (``--graph`` replaces the default set).
TEST_GRAPHS = {
    "reminders": "examples.reminders:graph",
    "reminders_langchain": "examples.reminders_langchain:graph",
    "reminders_gated": "tests.graphs:reminders_gated",
    "chain3": "tests.graphs:chain3",
    "gated": "tests.graphs:gated",
    "gated_question": "tests.graphs:gated_question",
    "failing": "tests.graphs:failing",
    "parallel": "tests.graphs:parallel",
    "questions": "tests.graphs:questions",
    "bulky": "tests.graphs:bulky",
    "memories": "tests.graphs:memories",
    "supervisor": "examples.supervisor:graph",
}
#: The environment variables the server reads its settings from.
SETTINGS_VARS = {f"GRAPHWIRE_{key.upper()}" for key in (*SETTINGS_KEYS, "config")}
START_DEADLINE = 30.0
STOP_DEADLINE = 30.0


@dataclass
class ServerProcess:
    """A running ``graphwire serve`` and what a test needs to talk to it."""

    proc: subprocess.Popen[bytes]
    address: str
    db: Path | None  # the SQLite file; None on PostgreSQL
    gates: Path
    log_path: Path
    token: str | None = None
    inspector_url: str | None = None  # "http://127.0.0.1:PORT/" when started with inspector=True
    http_url: str | None = None  # LangGraph's HTTP API, "http://127.0.0.1:PORT/", when started with http=True
    stdout_rest: list[bytes] = field(default_factory=list)

    # -- talking to it ---------------------------------------------------------
    def client(self, **kwargs: Any) -> Any:
        """A blocking ``graphwire.Client`` (with the server's token, if any)."""
        from graphwire import Client

        kwargs.setdefault("token", self.token)
        return Client(self.address, **kwargs)

    def async_client(self, **kwargs: Any) -> Any:
        """A ``graphwire.AsyncClient``; create it inside the event loop that uses it."""
        from graphwire import AsyncClient

        kwargs.setdefault("token", self.token)
        return AsyncClient(self.address, **kwargs)

    def channel(self) -> grpc.Channel:
        return grpc.insecure_channel(self.address)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()

    def health(self, service: str = "", timeout: float = 10.0) -> int:
        """The health status of ``service`` ("" = the server), as the enum number."""
        with self.channel() as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            resp = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout, wait_for_ready=True)
            return resp.status

    def open_gate(self, name: str) -> None:
        """Let the gated node waiting for ``name`` (see tests/graphs.py) go on."""
        (self.gates / name).touch()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    # -- ending it -------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self, timeout: float = STOP_DEADLINE) -> int:
        """SIGTERM, then the exit status."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            self.proc.send_signal(signal.SIGCONT)  # a stopped process handles SIGTERM only once it runs
        return self.proc.wait(timeout=timeout)

    def pause(self) -> None:
        """SIGSTOP: the process stops where it is (its leases stop being renewed)."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after :meth:`pause`."""
        self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> int:
        """SIGKILL: no drain, no clean-up; the SQLite file is left as a crash leaves it."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        return self.proc.wait(timeout=STOP_DEADLINE)


def _read_listening_line(proc: subprocess.Popen[bytes], log_path: Path, seen: list[str] | None = None) -> str:
    """The address from the "graphwire listening on HOST:PORT" line, read from stdout.

    Lines printed before it are appended to ``seen`` (the inspector's URL line comes first).
    """
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    deadline = time.monotonic() + START_DEADLINE
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode(errors="replace").strip()
                if text.startswith("graphwire listening on "):
                    return text.removeprefix("graphwire listening on ")
                if seen is not None:
                    seen.append(text)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                proc.kill()
                raise RuntimeError(f"server printed no 'listening' line in {START_DEADLINE}s:\n{log_path.read_text()}")
            if not sel.select(remaining):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                proc.wait(timeout=STOP_DEADLINE)
                raise RuntimeError(
                    f"server exited with {proc.returncode} before listening:\n{log_path.read_text(errors='replace')}"
                )
            buf += chunk


def _drain(stream: Any, into: list[bytes]) -> None:
    for line in iter(stream.readline, b""):
        into.append(line)


def start_server_process(
    workdir: Path,
    *,
    db: Path | None = None,
    graphs: dict[str, str] | None = None,
    token: str | None = None,
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    inspector: bool = False,
    http: bool = False,
    pg_dsn: str | None = None,
    pg_schema: str | None = None,
    lease_seconds: float | None = None,
    gates: Path | None = None,
    module: str = "server",
    config: Path | None = None,
    pythonpath: bool = True,
) -> ServerProcess:
    """Start ``python -m server serve`` on 127.0.0.1:0 and wait until it is SERVING.

    ``module``: what ``-m`` runs instead of ``server`` (a launcher that adds
    wiring before running the same CLI, e.g. ``tests.hardening._serve``).

    With ``inspector``, the inspector page is served too (on 127.0.0.1:0); its
    URL is ``inspector_url``. With ``http``, LangGraph's HTTP API likewise (``http_url``). With ``pg_dsn``, the checkpointer is PostgreSQL
    (in ``pg_schema``, with leases of ``lease_seconds``) instead of a SQLite
    file. ``gates``: the gates directory (default: one of its own), e.g. one
    that several replicas share. With ``config``, the server reads that file
    (``--config``) and gets ``--graph`` flags only if ``graphs`` is given
(``graphs={}``: no flags, whatever the config).
    ``pythonpath=False`` leaves PYTHONPATH unset: only what is installed, and
    what the server itself puts on the import path, can be imported.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    gates = gates or workdir / "gates"
    gates.mkdir(parents=True, exist_ok=True)
    if pg_dsn is not None:
        assert db is None, "a server uses SQLite or PostgreSQL, not both"
        checkpointer = pg_dsn
    else:
        db = db or workdir / "gw.db"
        checkpointer = str(db)
    log_path = workdir / f"server-{uuid.uuid4().hex[:6]}.log"
    cmd = [sys.executable, "-m", module, "serve", "--address", "127.0.0.1:0", "--checkpointer", checkpointer]
    if pg_schema is not None:
        cmd += ["--pg-schema", pg_schema]
    if lease_seconds is not None:
        cmd += ["--lease-seconds", str(lease_seconds)]
    if config is not None:
        cmd += ["--config", str(config)]
    if graphs is None:
        graphs = {} if config is not None else TEST_GRAPHS
    for name, spec in graphs.items():
        cmd += ["--graph", f"{name}={spec}"]
    if token:
        cmd += ["--auth-token", token]
    if inspector:
        cmd += ["--inspector", "127.0.0.1:0"]
    if http:
        cmd += ["--http", "127.0.0.1:0"]
    cmd += list(args)
    # The developer's own settings (GRAPHWIRE_AUTH_TOKEN, GRAPHWIRE_CONFIG, ...) must not reach a test server.
    full_env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARS}
    if pythonpath:
        full_env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    else:
        full_env.pop("PYTHONPATH", None)
    full_env["PYTHONUNBUFFERED"] = "1"
    full_env["GRAPHWIRE_TEST_GATES"] = str(gates)
    # One process, as before `--workers` (whose default on PostgreSQL is every CPU): a test wanting more says so.
    full_env["GRAPHWIRE_WORKERS"] = "1"
    full_env.update(env or {})
    with open(log_path, "wb") as log:
        # cwd is the test's directory: a graphwire.toml in the repository must not leak in.
        proc = subprocess.Popen(cmd, cwd=workdir, env=full_env, stdout=subprocess.PIPE, stderr=log)
    before: list[str] = []
    address = _read_listening_line(proc, log_path, before)
    urls = [line.removeprefix("graphwire inspector on ") for line in before if line.startswith("graphwire inspector on ")]
    srv = ServerProcess(proc, address, db, gates, log_path, token, urls[0] if urls else None)
    https = [line.removeprefix("graphwire http on ") for line in before if line.startswith("graphwire http on ")]
    srv.http_url = https[0] if https else None
    if http and srv.http_url is None:
        proc.kill()
        raise RuntimeError(f"server printed no 'graphwire http on' line:\n{log_path.read_text(errors='replace')}")
    if inspector and srv.inspector_url is None:
        proc.kill()
        raise RuntimeError(f"server printed no 'graphwire inspector on' line:\n{log_path.read_text(errors='replace')}")
    assert proc.stdout is not None
    threading.Thread(target=_drain, args=(proc.stdout, srv.stdout_rest), daemon=True).start()
    status = srv.health(timeout=START_DEADLINE)
    assert status == health_pb2.HealthCheckResponse.SERVING, f"health is {status} after start"
    return srv


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for every test that does not change the server itself."""
    srv = start_server_process(tmp_path_factory.mktemp("server"))
    yield srv
    code = srv.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start extra servers (same options as :func:`start_server_process`).

    Each gets its own directory under the test's ``tmp_path`` unless ``db``
    points at another server's file. Servers still running at the end get
    SIGTERM, and must exit 0.
    """
    started: list[ServerProcess] = []

    def start(**kwargs: Any) -> ServerProcess:
        srv = start_server_process(tmp_path / f"srv{len(started)}", **kwargs)
        started.append(srv)
        return srv

    yield start
    failures = []
    for srv in started:
        if srv.alive():
            code = srv.terminate()
            if code != 0:
                failures.append(f"server {srv.address} exited with {code}:\n{srv.log()}")
    assert not failures, "\n".join(failures)


@pytest.fixture
def thread_id(request: pytest.FixtureRequest) -> str:
    """A thread id no other test uses."""
    return f"{request.node.name[:40]}-{uuid.uuid4().hex[:8]}"


def self_signed(directory: Path, name: str = "localhost", alt_names: str = "DNS:localhost,IP:127.0.0.1") -> tuple[Path, Path]:
    """A self-signed certificate and key for ``name`` (and ``alt_names``) in ``directory`` (skips without openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={name}",
         "-addext", f"subjectAltName={alt_names}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def certs(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate and key for localhost / 127.0.0.1 (skips without openssl)."""
    return self_signed(tmp_path)
