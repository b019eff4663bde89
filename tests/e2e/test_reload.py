"""``graphwire serve --reload``: a saved change to a graph module, to a module it imports from a local
dependency, or to the config serves the project again, in a new process; a change that breaks the start
waits for the next one; SIGTERM stops the server and the watcher.

The project is tests/e2e/langgraph_app (langgraph.json, ``agent.py``, ``./libs/fares``), copied into a
temporary directory and served by the installed ``graphwire serve --reload``. No sleeps: each restart
is awaited by reading the new "listening" line (or the watcher's line) from its output, with a deadline.
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from graphwire import message_text, user_message

from tests.conftest import STOP_DEADLINE, ServerProcess, _read_listening_line
from tests.e2e.test_langgraph_project import GRAPHWIRE, copy_app, environment


def until(condition: Callable[[], bool], what: str, deadline: float = 60.0) -> None:
    """Poll ``condition`` until it holds; fail after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, f"no {what} in {deadline}s"
        time.sleep(0.05)  # polling a condition, not waiting a guessed time


def first_fare(srv: ServerProcess, thread: str) -> str:
    """The quote tool's answer to a first message on ``thread``."""
    with srv.client() as client:
        result = client.invoke("travel", thread, {"messages": [user_message("Fly me to Oslo")]}, timeout=30)
    return message_text(result.values["messages"][2])


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_saved_change_serves_again(tmp_path: Path) -> None:
    project = copy_app(tmp_path)
    log_path = tmp_path / "reload.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([str(GRAPHWIRE), "serve", "--reload"], cwd=project, env=environment(tmp_path, "installed"),
                                stdout=subprocess.PIPE, stderr=log)  # fmt: skip
    try:
        srv = ServerProcess(proc, _read_listening_line(proc, log_path), None, project, log_path)
        assert first_fare(srv, "t1") == "110 EUR"
        pids = [int(p) for p in re.findall(r"serving in process (\d+)", log_path.read_text())]

        # The graph module, and a module of a local dependency it imports: each change serves again.
        edit(project / "agent.py", "os.environ['TRAVEL_CURRENCY']}", "os.environ['TRAVEL_CURRENCY']} one way")
        srv.address = _read_listening_line(proc, log_path)
        assert first_fare(srv, "t2") == "110 EUR one way"
        edit(project / "libs" / "fares" / "src" / "fares" / "__init__.py", "90 + 5", "200 + 5")
        srv.address = _read_listening_line(proc, log_path)
        assert first_fare(srv, "t3") == "220 EUR one way"

        # The config: langgraph.json's description, and the .env it names.
        edit(project / "langgraph.json", "Quotes and books flights", "Quotes and books trains")
        srv.address = _read_listening_line(proc, log_path)
        with srv.client() as client:
            assert client.graphs(timeout=30)[0].description.startswith("Quotes and books trains")
        edit(project / ".env", "TRAVEL_CURRENCY=EUR", "TRAVEL_CURRENCY=NOK")
        srv.address = _read_listening_line(proc, log_path)
        assert first_fare(srv, "t4") == "220 NOK one way"

        # A change that breaks the start is said; the next one that mends it serves again.
        edit(project / "agent.py", "def agent(state: MessagesState) -> dict:", "def agent(state: MessagesState) -> dict")
        until(lambda: "waiting for a change to start it again" in log_path.read_text(), what="the watcher to wait")
        assert "has a syntax error at line" in log_path.read_text()
        edit(project / "agent.py", "def agent(state: MessagesState) -> dict", "def agent(state: MessagesState) -> dict:")
        srv.address = _read_listening_line(proc, log_path)
        assert first_fare(srv, "t5") == "220 NOK one way"

        pids = [int(p) for p in re.findall(r"serving in process (\d+)", log_path.read_text())]
        assert len(set(pids)) == 7  # the first, four changes, the broken start and the mended one
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=STOP_DEADLINE)
    assert code == 0, log_path.read_text()
    for pid in pids:  # every server the watcher started has ended with it
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower(), pid
