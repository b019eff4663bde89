"""A LangGraph project served as its author wrote it: ``graphwire serve`` in its directory, nothing else.

``langgraph_app/`` is a LangGraph project: a ``langgraph.json`` naming its
graph in the dict form, a ``.env``, a local dependency in the src layout
(``./libs/fares``, itself importing ``langgraph``), a key graphwire builds nothing from (``image_distro``), and
``agent.py`` with its ``langgraph`` imports unchanged (MessagesState, ToolNode,
tools_condition, an ``interrupt()`` before booking) around a scripted chat
model that streams its answer. The project is copied into a temporary
directory and served there by the installed ``graphwire serve`` with no
argument and no PYTHONPATH (only ``GRAPHWIRE_ADDRESS`` picks a free port), on
an environment with LangGraph installed and on one where it is not importable.
The Python client drives a tool turn, the interrupt, the resume and history;
with the import swap off, LangGraph itself runs the project (issue 31), the same.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from graphwire import CustomEvent, EventKind, FinishReason, MessageChunk, message_text, tool_calls, user_message

from tests.conftest import STOP_DEADLINE, ServerProcess, _read_listening_line

APP = Path(__file__).resolve().parent / "langgraph_app"
GRAPHWIRE = Path(sys.executable).parent / "graphwire"
#: A ``sitecustomize`` that makes ``import langgraph`` fail as on a machine without it (the swap's finder,
#: installed later at the front, still answers).
HIDE_LANGGRAPH = """
import sys

class _Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "langgraph":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, _Hide())
"""


def copy_app(tmp_path: Path) -> Path:
    project = tmp_path / "travel-app"
    shutil.copytree(APP, project, ignore=shutil.ignore_patterns("__pycache__"))
    return project


def environment(tmp_path: Path, langgraph: str, **extra: str) -> dict[str, str]:
    """The user's environment: no GRAPHWIRE_* settings, no PYTHONPATH, unless ``langgraph`` is to be hidden."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_") and k != "PYTHONPATH"}
    env.update(PYTHONUNBUFFERED="1", GRAPHWIRE_ADDRESS="127.0.0.1:0", **extra)
    if langgraph == "not installed":
        hider = tmp_path / "hide-langgraph"
        hider.mkdir()
        (hider / "sitecustomize.py").write_text(HIDE_LANGGRAPH)
        env["PYTHONPATH"] = str(hider)
    return env


@pytest.fixture
def serve_app(tmp_path: Path) -> Iterator[object]:
    """Start ``graphwire serve`` (no arguments) in a project directory; SIGTERM at the end, exit 0."""
    started: list[ServerProcess] = []

    def start(project: Path, env: dict[str, str]) -> ServerProcess:
        log_path = project.parent / f"server-{len(started)}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([str(GRAPHWIRE), "serve"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=log)
        srv = ServerProcess(proc, _read_listening_line(proc, log_path), project / "graphwire.db", project, log_path)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        assert srv.terminate(STOP_DEADLINE) == 0, srv.log()


@pytest.mark.parametrize("langgraph", ["installed", "not installed", "running it"])
def test_a_langgraph_project_serves_unchanged(tmp_path: Path, serve_app: object, langgraph: str) -> None:
    """The engine serves the project, LangGraph installed or not; with the import swap off, LangGraph
    itself runs it (issue 31), behind the same calls."""
    if langgraph != "not installed":
        pytest.importorskip("langgraph", reason="LangGraph is not installed here (the test extra installs it)")
    project = copy_app(tmp_path)
    env = environment(tmp_path, "installed", GRAPHWIRE_IMPORT_SWAP="false") if langgraph == "running it" else environment(tmp_path, langgraph)
    srv = serve_app(project, env)  # type: ignore[operator]
    with srv.client() as client:
        [graph] = client.graphs(timeout=30)
        assert (graph.name, graph.description) == ("travel", "Quotes and books flights, asking before it books.")

        # A tool turn (the fare, from the local dependency and the .env's currency), then the question.
        first = client.invoke("travel", "trip-1", {"messages": [user_message("Fly me to Oslo")]},
                              event_kinds=list(EventKind), timeout=30)  # fmt: skip
        assert first.reason is FinishReason.INTERRUPT
        # the dependency's own `langgraph` import is served too: its writer reaches the caller
        assert [e.payload for e in first.events if isinstance(e, CustomEvent)] == [{"fare_lookup": "Oslo"}]
        assert [i.value for i in first.interrupts] == [{"question": "Book the flight to Oslo?"}]
        said = [(m["type"], message_text(m)) for m in first.values["messages"]]
        assert said == [("human", "Fly me to Oslo"), ("ai", ""), ("tool", "110 EUR"), ("ai", "")]
        assert tool_calls(first.values["messages"][-1])[0]["name"] == "book"

        # The resume books (the .env's agency), and the model streams its answer.
        done = client.resume("travel", "trip-1", "yes", event_kinds=list(EventKind), timeout=30)
        assert done.reason is FinishReason.END
        answer = "All set: booked Oslo with Fjord Travel."
        assert [message_text(m) for m in done.values["messages"][-2:]] == ["booked Oslo with Fjord Travel", answer]
        chunks = [e for e in done.events if isinstance(e, MessageChunk) and e.node == "agent"]
        assert len(chunks) > 3 and "".join(c.text for c in chunks) == answer

        # History: every version, newest first, the one that asked waiting on the tools node.
        history = client.history("travel", "trip-1", timeout=30)
        assert history[0].checkpoint.checkpoint_id == done.checkpoint.checkpoint_id
        assert [s.checkpoint.step for s in history] == list(range(history[0].checkpoint.step, -2, -1))
        asked = next(s for s in history if s.checkpoint.checkpoint_id == first.checkpoint.checkpoint_id)
        assert asked.next == ("tools",) and len(asked.values["messages"]) == 4
    log = srv.log()
    if langgraph == "running it":
        assert "import swap off (import_swap is false)" in log
        assert "graph 'travel' runs on LangGraph itself (built with its classes, the import swap off)" in log
    else:
        assert "import swap on: the graphs' `langgraph` and `langgraph.X` imports get graphwire's engine" in log
    assert log.count("langgraph.json image_distro: not honoured: graphwire serve builds no image") == 1
    assert "2 variable(s) from .env set for the graphs" in log
    assert "not installed here" not in log  # langchain-core, its one named package, is
    assert "WARNING graphwire.server: listening on" not in log  # in a container, loopback is a note (INFO), not a warning


def test_the_swap_off_without_langgraph_says_what_serves_langgraph(tmp_path: Path) -> None:
    """Off, a module with ``langgraph`` imports gets LangGraph itself (served by it, above); not installed,
    the start is refused clearly."""
    project = copy_app(tmp_path)
    said = _refused([str(GRAPHWIRE), "serve"], project, environment(tmp_path, "not installed", GRAPHWIRE_IMPORT_SWAP="false"))
    assert said == (
        "graphwire: graph 'travel': fares imports 'langgraph', but LangGraph is not installed and the import "
        "swap is off: turn it on (import_swap = true, or leave it unset) so graphwire's engine serves langgraph"
    )


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("from langgraph.graph import NoSuchGraph",
         "graph 'travel': agent imports 'NoSuchGraph' from 'langgraph.graph', which graphwire's engine does not have "
         "('engine.graph' has no 'NoSuchGraph')"),
        ("import langgraph.no_such_module",
         "graph 'travel': agent imports 'langgraph.no_such_module', a module graphwire's engine does not have "
         "(the import swap serves langgraph with it)"),
    ],
    ids=["a name", "a module"],
)  # fmt: skip
def test_a_langgraph_name_the_engine_lacks_fails_in_one_line(tmp_path: Path, line: str, said: str) -> None:
    project = copy_app(tmp_path)
    agent = project / "agent.py"
    agent.write_text(agent.read_text().replace("import os\n", f"import os\n{line}\n", 1))
    assert _refused([str(GRAPHWIRE), "serve"], project, environment(tmp_path, "installed")) == f"graphwire: {said}"


def _refused(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """The one line a start that must fail says (status 2, no traceback)."""
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("graphwire: ")]
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_langchain_agent_project_serves_unchanged(tmp_path: Path, serve_app: object) -> None:
    """LangChain 1.x's create_agent with HumanInTheLoopMiddleware (issue 29 item 2): served by ``graphwire
    serve`` through the import swap, the middleware's question and an edited call answered over gRPC."""
    if importlib.util.find_spec("langchain") is None:
        pytest.skip("langchain 1.x is not installed here (the test extra installs it)")
    project = tmp_path / "mailer"
    shutil.copytree(Path(__file__).resolve().parent / "langchain_agent_app", project, ignore=shutil.ignore_patterns("__pycache__"))
    srv = serve_app(project, environment(tmp_path, "installed"))  # type: ignore[operator]
    with srv.client() as client:
        first = client.invoke("mailer", "t1", {"messages": [user_message("mail ann")]}, timeout=60)
        assert first.reason is FinishReason.INTERRUPT
        [asked] = [i.value for i in first.interrupts]
        assert asked["action_requests"][0]["args"] == {"to": "ann", "body": "hi"}
        assert asked["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject", "respond"]
        edit = {"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "ann", "body": "hello"}}}
        done = client.resume("mailer", "t1", {"decisions": [edit]}, timeout=60)
        assert done.reason is FinishReason.END
        said = [(m["type"], message_text(m)) for m in done.values["messages"]]
        assert [t for t, _ in said] == ["human", "ai", "tool", "ai"] and said[-1][1] == "mail sent"
        assert said[2][1].endswith("Tool response:\nsent to ann: hello")  # the reviewer's call ran
        assert len(client.history("mailer", "t1", timeout=30)) == 7


WEBAPP = '''
from contextlib import asynccontextmanager

from fastapi import FastAPI


@asynccontextmanager
async def lifespan(app):
    app.state.ready = "yes"
    yield


app = FastAPI(lifespan=lifespan)


@app.get("/hello")
def hello():
    return {"hello": "world", "ready": app.state.ready}


@app.get("/info")
def info():  # a route of the API's, overridden by the project's own
    return {"mine": True}
'''


def test_a_projects_own_routes_are_served_before_the_api(tmp_path: Path) -> None:
    """langgraph.json's ``http.app`` (LangGraph's custom routes): a FastAPI app's routes on the HTTP API's
    address, its lifespan run, its routes first (one overrides the API's ``/info``), the API behind them with its
    token; the project's routes open, as LangGraph's server leaves custom routes by default."""
    import json

    import httpx

    project = copy_app(tmp_path)
    (project / "webapp.py").write_text(WEBAPP)
    config = json.loads((project / "langgraph.json").read_text())
    (project / "langgraph.json").write_text(json.dumps({**config, "http": {"app": "./webapp.py:app"}}))
    env = environment(tmp_path, "installed", GRAPHWIRE_HTTP="127.0.0.1:0", GRAPHWIRE_AUTH_TOKEN="t0ken-0123456789abcdef")
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([str(GRAPHWIRE), "serve"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=log)
    before: list[str] = []
    srv = ServerProcess(proc, _read_listening_line(proc, log_path, before), project / "graphwire.db", project, log_path)
    try:
        [url] = [line.removeprefix("graphwire http on ") for line in before if line.startswith("graphwire http on ")]
        with httpx.Client(base_url=url, timeout=30) as http:
            assert http.get("/hello").json() == {"hello": "world", "ready": "yes"}
            assert http.get("/info").json() == {"mine": True}
            assert http.post("/assistants/search", json={}).status_code == 401  # the API's own routes keep their token
            searched = http.post("/assistants/search", json={}, headers={"x-api-key": "t0ken-0123456789abcdef"})
            assert [a["graph_id"] for a in searched.json()] == ["travel"]
    finally:
        assert srv.terminate(STOP_DEADLINE) == 0, srv.log()


def test_a_projects_app_that_is_not_one_is_refused_in_one_line(tmp_path: Path) -> None:
    import json

    project = copy_app(tmp_path)
    (project / "webapp.py").write_text("app = {'routes': []}\n")
    config = json.loads((project / "langgraph.json").read_text())
    (project / "langgraph.json").write_text(json.dumps({**config, "http": {"app": "./webapp.py:app"}}))
    said = _refused([str(GRAPHWIRE), "serve"], project, environment(tmp_path, "installed", GRAPHWIRE_HTTP="127.0.0.1:0"))
    assert said == "graphwire: http.app: './webapp.py:app' names a builtins.dict, not a Starlette or FastAPI app (app = FastAPI() or app = Starlette(...))"
