"""``graphwire serve`` takes SIGTERM before it says it listens.

Whoever reads the "graphwire listening on" line may stop the server at once: the
``--workers`` supervisor forwards a SIGTERM to every worker as soon as each has
said it (server/_workers.py), a test harness or a process manager likewise. A
signal arriving before the handler was in place killed the process undrained
(exit 143, seen in CI). The check is made the moment the line is printed, in a
server process of its own (its start changes the process: the collector, the
import swap).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

DRIVER = r"""
import asyncio, builtins, os, signal, sys
from server.app import serve
from server.config import ServerConfig

told = []
printed = builtins.print

def watching_print(*args, **kw):
    text = " ".join(map(str, args))
    if text.startswith("graphwire listening on"):
        told.append(signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None))
        os.kill(os.getpid(), signal.SIGTERM)  # at once, as a reader of the line may
    printed(*args, **kw)

builtins.print = watching_print
config = ServerConfig(address="127.0.0.1:0", graphs={"chain3": "tests.graphs:chain3"}, checkpointer=sys.argv[1])
asyncio.run(serve(config))
printed("handler in place when the line was printed:", told)
"""


def test_sigterm_right_after_the_listening_line_drains(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tmp_path / "gw.db")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "handler in place when the line was printed: [True]" in done.stdout, (done.stdout, done.stderr[-2000:])
