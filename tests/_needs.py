"""What a test needs from the machine: skip without it, fail under CI.

A tool the tests cannot do without on a developer's machine (Node.js, buf,
Go, a container builder) makes its tests skip with the reason, so that
``python -m pytest`` works on a fresh clone; under ``CI=true`` the same gap
is a failure, because CI must not pass by skipping. :func:`npm_ci` installs a
test directory's npm packages once per ``package-lock.json`` and Node
version, without running install scripts.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

__all__ = ["in_ci", "missing", "npm_ci", "require_node", "repo_lock"]

NPM_CI_TIMEOUT = 300


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def missing(reason: str, *, ci_fails: bool = True) -> NoReturn:
    """Skip with ``reason``; under CI=true fail instead (unless ``ci_fails`` is False)."""
    if ci_fails and in_ci():
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def require_node(what: str) -> None:
    """Skip (fail under CI) unless ``node`` and ``npm`` are on PATH."""
    gone = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if gone:
        missing(f"{what} needs Node.js ({' and '.join(gone)} not on PATH)")


@contextlib.contextmanager
def repo_lock(name: str) -> Iterator[None]:
    """Hold the lock ``name`` of this checkout across processes (the test run's workers: pytest-xdist).

    For what tests share in the repository itself: a directory's node_modules
    while ``npm ci`` fills it, the TypeScript client's ``dist/`` that its
    test script removes and builds again while another test's project links it.
    """
    key = hashlib.sha256(str(Path(__file__).resolve().parents[1]).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"graphwire-tests-{key}-{name}.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # released when the file closes
        yield


def npm_ci(directory: Path) -> None:
    """``npm ci`` in ``directory`` unless its node_modules came from the same lock file and Node."""
    with repo_lock("npm-" + hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:12]):
        _npm_ci(directory)


def _npm_ci(directory: Path) -> None:
    stamp = directory / "node_modules" / ".graphwire-installed"
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    want = f"{hashlib.sha256((directory / 'package-lock.json').read_bytes()).hexdigest()} node-{node}"
    if stamp.exists() and stamp.read_text() == want:
        return
    proc = subprocess.run(
        ["npm", "ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=directory,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=NPM_CI_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, f"npm ci in {directory} failed:\n{proc.stdout}\n{proc.stderr}"
    stamp.write_text(want)
