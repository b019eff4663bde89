"""Go for the tests, from Debian's packages, offline (GOPATH mode).

:func:`go_env` makes a GOPATH whose ``src/graphwire`` is ``clients/go``,
beside Debian's ``/usr/share/gocode`` (grpc-go, protobuf-go), and returns the
environment ``go`` runs in: no module download ever happens. Without Go or
those packages the test skips with the reason, and fails under CI=true,
where ``.ci/run`` installs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests._needs import missing

__all__ = ["CLIENT", "go_env", "go"]

REPO = Path(__file__).resolve().parent.parent
CLIENT = REPO / "clients" / "go"
GOCODE = Path("/usr/share/gocode")
NEEDED = (
    "apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev"
)
TIMEOUT = 15 * 60  # seconds; a cold build and the tests take well under two minutes


def go_env(root: Path) -> dict[str, str]:
    """The environment for ``go`` with a GOPATH under ``root``; ``PWD`` is the client's package directory."""
    if shutil.which("go") is None or shutil.which("gofmt") is None:
        missing(f"Go is not installed ({NEEDED})")
    if not all((GOCODE / "src" / p).is_dir() for p in ("google.golang.org/grpc", "google.golang.org/protobuf")):
        missing(f"Debian's grpc-go and protobuf-go are not in {GOCODE} ({NEEDED})")
    if not (GOCODE / "src/github.com/golang/protobuf/proto/wrappers.go").exists():  # 1.4+ has it, 1.3 does not
        missing(f"github.com/golang/protobuf in {GOCODE} is older than 1.4 ({NEEDED})")
    (root / "src").mkdir(parents=True, exist_ok=True)
    link = root / "src" / "graphwire"
    if not link.exists():
        link.symlink_to(CLIENT)
    keep = {
        k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_") and k not in ("GOPATH", "GOFLAGS", "GO111MODULE")
    }
    return {
        **keep,
        "GO111MODULE": "off",
        "GOPATH": f"{root}{os.pathsep}{GOCODE}",
        "GOFLAGS": "",
        "GRAPHWIRE_PYTHON": sys.executable,  # what graphwiretest.Start runs the server with
        "GRAPHWIRE_REPO": str(REPO),
        "PWD": str(link),
    }


def go(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), cwd=cwd or env["PWD"], env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
