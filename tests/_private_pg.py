"""A PostgreSQL cluster of a test's own: for tests that stop and start the database.

Stopping the developer's PostgreSQL (or CI's shared one) would break every
other test and every other process using it, so a test that needs an outage
runs its own cluster instead: ``initdb`` in a temporary directory, started
with ``pg_ctl`` on a free port of 127.0.0.1 with trust authentication, and
removed at the end. The binaries come from the machine's PostgreSQL
(``pg_config --bindir``, or Debian's ``/usr/lib/postgresql/<version>/bin``).

PostgreSQL refuses to run as root; as root the cluster runs as the
``postgres`` user (``runuser``). Without the binaries the test is skipped with
the reason, and fails under ``CI=true``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["PrivateCluster", "find_bindir", "private_pg"]


def find_bindir() -> Path | None:
    """Where initdb and pg_ctl are, or None."""
    candidates: list[str] = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        candidates.append(out.stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for d in candidates:
        if d and all(os.access(os.path.join(d, b), os.X_OK) for b in ("initdb", "pg_ctl", "postgres")):
            return Path(d)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PrivateCluster:
    """A running cluster of one test: ``dsn`` reaches its ``postgres`` database as user ``root``."""

    bindir: Path
    datadir: Path
    port: int
    run_as: str | None

    @property
    def dsn(self) -> str:
        return f"postgresql://root@127.0.0.1:{self.port}/postgres"

    def _pg_ctl(self, *args: str) -> None:
        cmd = [str(self.bindir / "pg_ctl"), "-D", str(self.datadir), *args]
        if self.run_as:
            cmd = ["runuser", "-u", self.run_as, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        opts = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.datadir} -c fsync=off"
        self._pg_ctl("-w", "-t", "60", "-l", str(self.datadir / "server.log"), "-o", opts, "start")

    def stop(self) -> None:
        """Stop now, ending every session (``-m fast``)."""
        self._pg_ctl("-w", "-t", "60", "-m", "fast", "stop")

    def is_up(self) -> bool:
        cmd = [str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"]
        return subprocess.run(cmd, check=False, timeout=30).returncode == 0


@pytest.fixture
def private_pg() -> Iterator[PrivateCluster]:
    """A fresh cluster for this test, stopped and removed afterwards, whatever happened."""
    bindir = find_bindir()
    if bindir is None:
        reason = "a private PostgreSQL cluster needs initdb and pg_ctl (Debian's postgresql package)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: this test must run)")
        pytest.skip(reason)
    run_as = "postgres" if os.geteuid() == 0 else None
    if run_as is not None:
        try:
            owner = pwd.getpwnam(run_as)
        except KeyError:
            pytest.skip("running as root, and there is no 'postgres' user to run a private cluster as")
    top = Path(tempfile.mkdtemp(prefix="gw-pg-"))
    datadir = top / "data"
    datadir.mkdir()
    if run_as is not None:
        os.chown(top, owner.pw_uid, owner.pw_gid)
        os.chown(datadir, owner.pw_uid, owner.pw_gid)
    init = [str(bindir / "initdb"), "-D", str(datadir), "-U", "root", "--auth=trust", "-E", "UTF8", "--no-sync"]
    if run_as is not None:
        init = ["runuser", "-u", run_as, "--", *init]
    subprocess.run(init, check=True, capture_output=True, timeout=120)
    cluster = PrivateCluster(bindir, datadir, _free_port(), run_as)
    cluster.start()
    try:
        yield cluster
    finally:
        if cluster.is_up():
            try:
                cluster.stop()
            except subprocess.CalledProcessError:
                pass
        shutil.rmtree(top, ignore_errors=True)
