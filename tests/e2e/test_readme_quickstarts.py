"""The README's quickstarts run as written and print what their comments say.

Python: the block under "Quickstart from Python", run as a script. TypeScript:
the block under "Quickstart from TypeScript", saved as ``quickstart.mjs`` in
a fresh project that installed ``clients/typescript`` the way the README
says, run with ``node``. Go: the block under "Quickstart from Go", saved as
``main.go`` and run with ``go run`` in GOPATH mode. Each talks to a fresh demo server (the README's
address is replaced by the test server's); afterwards the regenerated thread
must have ended with a new reply, not be waiting at a question again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

from tests._go import go, go_env
from tests._readme import blocks, promised_in_order, promises, typescript_project
from tests.conftest import ServerProcess

README_ADDRESS = "127.0.0.1:50051"
DEMO = {"reminders": "examples.reminders:graph"}


def demo(start_server: Callable[..., ServerProcess]) -> ServerProcess:
    return start_server(graphs=DEMO, env={"GRAPHWIRE_FORECAST_DELAY": "0"})


def assert_regenerated(srv: ServerProcess, thread: str) -> None:
    with srv.client() as client:
        state = client.get_state("reminders", thread)
        history = client.history("reminders", thread)
    assert state.next == () and not state.interrupts  # ended, not asking again
    replies = [s.values["messages"][-1] for s in history if s.next == () and s.checkpoint.source == "loop"]
    assert len(replies) == 2 and replies[0]["id"] != replies[1]["id"]  # a second reply, on its own branch
    assert replies[0]["content"] == replies[1]["content"] == "Done: I'll remind you to call mom at 5pm."
    assert state.checkpoint.parent_id in {s.checkpoint.checkpoint_id for s in history if s.checkpoint.source == "fork"}


def test_the_python_quickstart(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    (code,) = blocks("Quickstart from Python", "python")
    assert README_ADDRESS in code
    srv = demo(start_server)
    script = tmp_path / "quickstart.py"
    script.write_text(code.replace(README_ADDRESS, srv.address))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the client as installed, nothing else
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert promised_in_order(done.stdout, promises(code, "#")) == [], done.stdout
    assert_regenerated(srv, "user-42")


def test_the_typescript_quickstart(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    sh, js = blocks("Quickstart from TypeScript", "sh")[0], blocks("Quickstart from TypeScript", "js")[0]
    assert "npm install ../clients/typescript" in sh
    srv = demo(start_server)
    with typescript_project(tmp_path / "my-chat") as project:
        (project / "quickstart.mjs").write_text(js.replace(README_ADDRESS, srv.address))
        done = subprocess.run(["node", "quickstart.mjs"], cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert promised_in_order(done.stdout, promises(js, "//")) == [], done.stdout
    assert_regenerated(srv, "user-42")


def test_the_go_quickstart(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    (code,) = blocks("Quickstart from Go", "go")
    env = go_env(tmp_path / "gopath")
    srv = demo(start_server)
    main = tmp_path / "quickstart" / "main.go"
    main.parent.mkdir()
    main.write_text(code.replace(README_ADDRESS, srv.address))
    done = go(env, "go", "run", str(main), cwd=main.parent)
    assert done.returncode == 0, done.stderr
    assert promised_in_order(done.stdout, promises(code, "//")) == [], done.stdout
    assert_regenerated(srv, "user-42")
