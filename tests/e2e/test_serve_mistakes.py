"""``graphwire serve`` given what a newcomer gets wrong: it stops with status 2
and one line naming what is wrong and what to do, never a traceback.

Each case runs the real command (``python -m server serve``) in a directory
of its own, with no ``GRAPHWIRE_*`` variables: a port another process holds,
an address gRPC would quietly reinterpret, a graph file with a syntax error, a
graphwire.toml that is not TOML or whose [graphs] table is missing or empty,
a graph factory that raises, a graph that does not compile, a database file
that is not SQLite or is in a directory that does not exist (checkpointer,
store and cache alike), a SQLite file another program made (a LangGraph
SqliteSaver's), TLS files that are not what they should be, and durable-turn
settings out of range (``--run-retention-seconds``, ``--max-run-attempts``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import self_signed

AGENT = '''
from typing import Annotated, TypedDict
from engine.graph import START, StateGraph, add_messages

class State(TypedDict):
    messages: Annotated[list, add_messages]

graph = StateGraph(State).add_node("reply", lambda s: {"messages": []}).add_edge(START, "reply")
'''


def serve(cwd: Path, *args: str) -> str:
    """``graphwire serve ARGS`` in ``cwd``, expected to refuse to start; its stderr."""
    # As a user runs it: the installed server, no PYTHONPATH (so the checkout's examples/ is not importable).
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_") and k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("graphwire: ")]
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A directory holding a graph that works, ``agent.py``."""
    (tmp_path / "agent.py").write_text(AGENT)
    return tmp_path


@pytest.fixture
def held_port() -> Iterator[int]:
    """A port another process (here, this one) listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


MEMORY = ("--checkpointer", ":memory:", "--address", "127.0.0.1:0")


def test_a_port_in_use_is_named_with_the_way_out(project: Path, held_port: int) -> None:
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY, "--address", f"127.0.0.1:{held_port}")
    assert f"cannot listen on '127.0.0.1:{held_port}': port {held_port} is already in use" in said
    assert "--address" in said and "port 0 picks a free one" in said


def test_an_address_gRPC_would_reinterpret_is_refused(project: Path) -> None:
    # gRPC takes port 99999 as 99999 % 65536 = 34463: it would listen elsewhere than asked.
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY, "--address", "127.0.0.1:99999")
    assert "address '127.0.0.1:99999': use HOST:PORT with a port from 0 to 65535" in said
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY, "--address", "localhost")
    assert "address 'localhost': use HOST:PORT" in said


def test_a_host_that_is_not_this_machines(project: Path) -> None:
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY, "--address", "192.0.2.7:50051")  # TEST-NET-1
    assert "192.0.2.7 is not an address of this machine; use 127.0.0.1" in said


def test_durable_turn_settings_out_of_range(project: Path) -> None:
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY, "--run-retention-seconds", "0")
    assert said == "graphwire: run_retention_seconds must be a number of seconds above 0, got 0.0"
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY, "--max-run-attempts", "0")
    assert said == "graphwire: max_run_attempts must be a whole number of at least 1, not 0"


def test_a_graph_file_with_a_syntax_error(project: Path) -> None:
    (project / "agent.py").write_text(AGENT.replace("class State(TypedDict):", "class State(TypedDict)"))
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY)
    assert f"graph 'agent': {project / 'agent.py'} has a syntax error at line 5" in said


def test_a_config_without_graphs_outside_the_repository(project: Path) -> None:
    (project / "graphwire.toml").write_text('address = "127.0.0.1:0"\ncheckpointer = ":memory:"\n')
    said = serve(project)
    assert "cannot import 'examples.reminders': the examples are not installed" in said
    assert "run graphwire serve from the repository's root" in said
    assert "a [graphs] table in graphwire.toml" in said and "graphwire init" in said
    (project / "graphwire.toml").write_text('address = "127.0.0.1:0"\ncheckpointer = ":memory:"\n[graphs]\n')
    said = serve(project)
    assert "no graphs configured (the [graphs] table of 'graphwire.toml' is empty)" in said
    assert 'agent = "./agent.py:graph"' in said


def test_a_graph_factory_that_raises_names_the_line(project: Path) -> None:
    (project / "factory.py").write_text("import os\n\ndef make():\n    return os.environ['MY_MODEL_KEY']\n\ndef make_with(config):\n    return None\n")
    said = serve(project, "--graph", "agent=./factory.py:make", *MEMORY)
    assert "graph 'agent': make() (spec './factory.py:make') raised KeyError: 'MY_MODEL_KEY'" in said
    assert f"(at {project / 'factory.py'}, line 4)" in said
    said = serve(project, "--graph", "agent=./factory.py:make_with", *MEMORY)
    assert said == (
        "graphwire: graph 'agent': make_with(config) (spec './factory.py:make_with') returned a NoneType, not a "
        "StateGraph builder, a compiled graph, or a function returning one"
    )


def test_a_graph_that_does_not_compile_is_named(project: Path) -> None:
    (project / "agent.py").write_text(AGENT.replace('.add_edge(START, "reply")', ""))
    said = serve(project, "--graph", "agent=./agent.py:graph", *MEMORY)
    assert "graph 'agent' (spec './agent.py:graph') does not compile: Graph must have an entrypoint" in said


@pytest.mark.parametrize("setting", ["checkpointer", "store", "cache"])
def test_a_database_file_that_is_not_sqlite(project: Path, setting: str) -> None:
    (project / "notes.db").write_text("these are my notes, not a database\n" * 10)
    extra = () if setting == "checkpointer" else ("--checkpointer", "graphwire.db")
    said = serve(project, "--graph", "agent=./agent.py:graph", *extra, f"--{setting}", "notes.db")
    assert f"{setting} 'notes.db': {project / 'notes.db'} is not a SQLite database" in said
    assert "name another file, or move this one away" in said
    assert (project / "notes.db").read_text().startswith("these are my notes")  # left as it was


@pytest.mark.parametrize("setting", ["checkpointer", "store", "cache"])
def test_a_database_in_a_directory_that_does_not_exist(project: Path, setting: str) -> None:
    extra = () if setting == "checkpointer" else ("--checkpointer", "graphwire.db")
    missing = project / "data" / "gw.db"
    said = serve(project, "--graph", "agent=./agent.py:graph", *extra, f"--{setting}", str(missing))
    assert f"{setting} {str(missing)!r}: the directory {project / 'data'} does not exist; create it" in said
    (project / "data.db").mkdir()
    said = serve(project, "--graph", "agent=./agent.py:graph", *extra, f"--{setting}", "data.db")
    assert f"{project / 'data.db'} is a directory; name a file" in said


def test_tls_files_that_are_not_a_certificate_and_its_key(project: Path) -> None:
    (project / "a").mkdir()
    (project / "b").mkdir()
    cert, key = self_signed(project / "a")
    _, other_key = self_signed(project / "b")
    flags = ("--graph", "agent=./agent.py:graph", *MEMORY)
    said = serve(project, *flags, "--tls-cert", "missing.crt", "--tls-key", str(key))
    assert "tls_cert 'missing.crt': cannot read it (No such file or directory)" in said
    said = serve(project, *flags, "--tls-cert", str(key), "--tls-key", str(cert))
    assert f"tls_cert {str(key)!r}: not a PEM certificate" in said
    said = serve(project, *flags, "--tls-cert", str(cert), "--tls-key", str(other_key))
    assert f"tls_key {str(other_key)!r} is not the private key of tls_cert {str(cert)!r}" in said


def test_a_sqlite_file_another_program_made(project: Path) -> None:
    import sqlite3

    with sqlite3.connect(project / "checkpoints.sqlite") as conn:  # the tables LangGraph's SqliteSaver makes
        conn.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, checkpoint BLOB)")
        conn.execute("CREATE TABLE writes (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, value BLOB)")
    conn.close()
    said = serve(project, "--graph", "agent=./agent.py:graph", "--address", "127.0.0.1:0", "--checkpointer", "checkpoints.sqlite")
    assert f"checkpointer 'checkpoints.sqlite': {project / 'checkpoints.sqlite'} is a SQLite database another program made" in said
    assert "(tables checkpoints, writes (LangGraph's SqliteSaver makes these))" in said and "name a new file" in said


def test_a_graphwire_toml_that_is_not_toml_shows_the_line(project: Path) -> None:
    (project / "graphwire.toml").write_text('address = "127.0.0.1:0"\n[graphs]\nagent = ./agent.py:graph\n')
    said = serve(project)
    assert "config file 'graphwire.toml': Invalid value (at line 3, column 9): 'agent = ./agent.py:graph'" in said
    assert "text needs quotes in TOML" in said
