"""The CLI for people at a terminal, driven as a subprocess against a real
server: ``chat`` through stdin, ``history`` (rows per branch, forks shown) and
``state``."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Add a reminder to call mom at 5pm?"
REPLY = "Done: I'll remind you to call mom at 5pm."


def graphwire(server: Any, *args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``graphwire ARGS --address <server>`` (as ``python -m server``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHWIRE_AUTH_TOKEN", "GRAPHWIRE_ADDRESS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return subprocess.run(
        [sys.executable, "-m", "server", *args, "--address", server.address],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def test_console_script_is_the_cli() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "graphwire"]
    assert script.value == "server.cli:main"


def test_chat_asks_and_answers(server: Any, thread_id: str, tmp_path: Path) -> None:
    done = graphwire(
        server, "chat", "--graph", "reminders", "--thread", thread_id, stdin="remind me to call mom at 5pm\nyes\n", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"thread {thread_id!r}" in out
    assert f"? {QUESTION}" in out
    assert f"assistant: {REPLY}" in out
    assert out.index(QUESTION) < out.index(REPLY)
    # The conversation really happened on the server.
    with server.client() as client:
        assert client.get_state("reminders", thread_id).values["reminders"] == [{"text": "call mom", "at": "5pm"}]


def test_chat_decline_and_plain_reply(server: Any, thread_id: str, tmp_path: Path) -> None:
    done = graphwire(
        server, "chat", "--graph", "reminders", "--thread", thread_id, stdin="hello there\nremind me to call mom at 5pm\nno\n", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "assistant: You said: hello there." in done.stdout
    assert "assistant: OK, I won't remind you to call mom." in done.stdout


def test_chat_reports_errors(server: Any, thread_id: str, tmp_path: Path) -> None:
    done = graphwire(server, "chat", "--graph", "nope", "--thread", thread_id, stdin="hi\n", cwd=tmp_path)
    assert done.returncode == 0
    assert "[error NOT_FOUND: unknown graph 'nope'" in done.stdout


def _shown_id(text: str, before: str, after: str = "]") -> str:
    """The id shown in ``text`` right after ``before``."""
    start = text.index(before) + len(before)
    return text[start : text.index(after, start)]


def _identifies(shown: str, full: str, all_ids: list[str]) -> bool:
    """``shown`` is a prefix of ``full`` and of no other version's id."""
    return full.startswith(shown) and [i for i in all_ids if i.startswith(shown)] == [full]


def test_history_and_state(server: Any, thread_id: str, tmp_path: Path) -> None:
    with server.client() as client:
        client.invoke("reminders", thread_id, {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]})
        client.resume("reminders", thread_id, "yes")
        versions = client.history("reminders", thread_id)
    head = versions[0].checkpoint
    ids = [v.checkpoint.checkpoint_id for v in versions]

    history = graphwire(server, "history", thread_id, "--graph", "reminders", cwd=tmp_path)
    assert history.returncode == 0, history.stderr
    lines = history.stdout.strip().splitlines()
    assert len([line for line in lines if line.startswith("branch ")]) == 1
    row = lines[0]
    # Every version, oldest first, with its step, source and what is due next; the latest marked.
    expected = ["-1 input →__start__", "0 loop →model", "1 loop →ask_user", "2 loop →tools", "3 loop →model", "4 loop →END"]
    positions = [row.index(f"[{e} ") for e in expected]
    assert positions == sorted(positions)
    # Each version is shown by an id prefix that tells it apart from the others.
    shown = [_shown_id(row, f"[{e} ") for e in expected]
    assert all(_identifies(s, full, ids) for s, full in zip(shown, reversed(ids)))
    assert _identifies(_shown_id(row, "*[4 loop →END "), head.checkpoint_id, ids)

    state = graphwire(server, "state", thread_id, "--graph", "reminders", cwd=tmp_path)
    assert state.returncode == 0, state.stderr
    assert f"checkpoint {head.checkpoint_id} (step 4, loop, parent {head.parent_id})" in state.stdout
    assert "next: END" in state.stdout
    values = json.loads(state.stdout[state.stdout.index("{") :])
    assert values["reminders"] == [{"text": "call mom", "at": "5pm"}]

    # An older version by id: waiting at the question.
    asked = next(v.checkpoint for v in versions if v.checkpoint.next == ("ask_user",))
    older = graphwire(server, "state", thread_id, "--graph", "reminders", "--checkpoint", asked.checkpoint_id, cwd=tmp_path)
    assert older.returncode == 0, older.stderr
    assert "next: ask_user" in older.stdout
    assert f"at ask_user: {json.dumps(QUESTION)}" in older.stdout

    # The id history shows is accepted as it is.
    short = _shown_id(row, "[1 loop →ask_user ")
    assert len(short) < len(asked.checkpoint_id)
    by_prefix = graphwire(server, "state", thread_id, "--graph", "reminders", "--checkpoint", short, cwd=tmp_path)
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert f"checkpoint {asked.checkpoint_id} " in by_prefix.stdout

    # graphwire fork THREAD PREFIX goes back there: ask_user asks again.
    forked = graphwire(server, "fork", thread_id, short, "--graph", "reminders", cwd=tmp_path)
    assert forked.returncode == 0, forked.stderr
    assert f"forked {thread_id!r} from {asked.checkpoint_id}: run ended INTERRUPT" in forked.stdout
    assert f"? {QUESTION}" in forked.stdout
    with server.client() as client:
        fork_head = client.get_state("reminders", thread_id).checkpoint
    ids.append(fork_head.checkpoint_id)

    # History: the current branch (through the fork) first; the path the fork
    # replaced is "abandoned at" the version the fork left, not "forked from".
    after = graphwire(server, "history", thread_id, "--graph", "reminders", cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    branches = [line for line in after.stdout.splitlines() if line.startswith("branch ")]
    assert len(branches) == 2
    current, abandoned = branches
    assert current.startswith("branch 1 (current): ")
    assert _identifies(_shown_id(current, "*[2 fork →ask_user "), fork_head.checkpoint_id, ids)
    assert _identifies(_shown_id(abandoned, "branch 2 (abandoned at ", ")"), asked.checkpoint_id, ids)
    assert "forked from" not in abandoned and "[4 loop →END " in abandoned


def test_a_prefix_that_names_no_version_or_several_fails(server: Any, thread_id: str, tmp_path: Path) -> None:
    with server.client() as client:
        client.invoke("chain3", thread_id, {"n": 0})
        ids = [s.checkpoint.checkpoint_id for s in client.history("chain3", thread_id)]
    common = os.path.commonprefix(ids)
    several = graphwire(server, "state", thread_id, "--graph", "chain3", "--checkpoint", common, cwd=tmp_path)
    assert several.returncode == 1
    assert f"{common!r} starts {len(ids)} version ids of thread {thread_id!r}" in several.stderr
    assert "give more of it" in several.stderr
    none = graphwire(server, "fork", thread_id, "zzzz", "--graph", "chain3", cwd=tmp_path)
    assert none.returncode == 1
    assert f"thread {thread_id!r} has no version whose id starts with 'zzzz'" in none.stderr


def test_without_graph_the_cli_needs_a_server_of_one_graph(server: Any, tmp_path: Path) -> None:
    done = graphwire(server, "history", "t1", cwd=tmp_path)
    assert done.returncode == 1
    assert re.search(r"the server runs \d+ graphs \(.*reminders.*\): pick one with --graph NAME", done.stderr)


def test_state_of_unknown_thread_fails(server: Any, tmp_path: Path) -> None:
    done = graphwire(server, "state", "no-such-thread-for-cli", "--graph", "reminders", cwd=tmp_path)
    assert done.returncode == 1
    assert "NOT_FOUND" in done.stderr and "no-such-thread-for-cli" in done.stderr


@pytest.mark.parametrize(
    ("name", "text"),
    [("graphwire.toml", 'address = "127.0.0.1:{port}"\n'),
     ("langgraph.json", '{{"graphs": {{"a": "./a.py:graph"}}, "graphwire": {{"address": "0.0.0.0:{port}"}}}}')],
)  # fmt: skip
def test_the_client_commands_find_the_configured_server(
    server: Any, thread_id: str, tmp_path: Path, name: str, text: str
) -> None:
    """As ``health``: no --address, the address serve reads (a wildcard one reached through loopback)."""
    with server.client() as client:
        client.invoke("reminders", thread_id, {"messages": [{"role": "user", "content": "hi"}]}, timeout=30)
    (tmp_path / name).write_text(text.format(port=server.address.rpartition(":")[2]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    for command in (["history", thread_id], ["state", thread_id]):
        done = subprocess.run([sys.executable, "-m", "server", *command, "--graph", "reminders"],
                              capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert '"content": "hi"' in done.stdout


def _refusing_address() -> Any:
    """An address nothing listens on (bound, never listening: connecting is refused), held for the test."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


def test_no_server_at_the_address_says_to_start_one(tmp_path: Path) -> None:
    with _refusing_address() as sock:
        address = f"127.0.0.1:{sock.getsockname()[1]}"
        done = graphwire(SimpleNamespace(address=address), "history", "t1", "--graph", "reminders", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("graphwire: UNAVAILABLE: ")
    assert f"(is `graphwire serve` running on {address}? start it, or name its address with --address)" in done.stderr


def _blocked_reading_a_pipe(pid: int) -> None:
    """Return once ``pid``'s main thread sleeps in read() on a pipe (its stdin), as the kernel tells.

    A SIGINT that lands between the prompt and the read() is noted but
    interrupts no read, so the read blocks for good: no person is that fast,
    and the test must not be either.
    """
    import time

    wchan = Path(f"/proc/{pid}/wchan")
    if not wchan.exists():
        pytest.skip("this kernel does not show where a process sleeps (/proc/PID/wchan)")
    deadline, seen = time.monotonic() + 30, set()
    while "pipe" not in (now := wchan.read_text()):
        seen.add(now)
        if time.monotonic() > deadline:
            if seen <= {"", "0"}:  # "0" while running, and always where the kernel hides it
                pytest.skip("this kernel does not show where a process sleeps (/proc/PID/wchan is 0)")
            raise AssertionError(f"chat never waited for its input (it slept in {sorted(seen)})")
        time.sleep(0.005)  # polling a condition the kernel reports, not waiting a guessed time


#: Runs ``python ARGS...`` with SIGINT's default action, as a terminal's shell starts a command. An
#: ignored signal stays ignored across exec, and Python then leaves it so: the test run's own
#: process may ignore SIGINT (pytest-xdist's workers do), and the chat would never see the Ctrl-C.
_WITH_SIGINT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"


def test_ctrl_c_at_the_chat_prompt_ends_it_without_a_traceback(tmp_path: Path) -> None:
    # Only what a shell would give the process: nothing an earlier test left in this process's environment.
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    with _refusing_address() as sock:  # --graph given: chat asks the server nothing before its prompt
        address = f"127.0.0.1:{sock.getsockname()[1]}"
        proc = subprocess.Popen(
            [sys.executable, "-c", _WITH_SIGINT, "-u", "-m", "server", "chat", "--graph", "reminders", "--address", address],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env,
        )  # fmt: skip
        try:
            assert proc.stdout is not None and proc.stderr is not None
            seen = b""
            while not seen.endswith(b"you: "):  # the prompt: chat waits for a line
                chunk = proc.stdout.read(1)
                assert chunk, (seen, proc.stderr.read())
                seen += chunk
            _blocked_reading_a_pipe(proc.pid)  # as a person presses Ctrl-C: while chat waits in read()
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=30) == 130
            assert "Traceback" not in proc.stderr.read().decode()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
