"""A newcomer's own graph: next to graphwire.toml, as a module or a file
path, served with no PYTHONPATH; ``graphwire init`` writes one that serves
at once. The server runs from another directory, so nothing but the config
file's location can make the graph importable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from graphwire import message_role

from tests.conftest import ServerProcess

GRAPH = '''
from typing import Annotated, TypedDict
import operator

from engine.graph import END, START, StateGraph

from helpers import shout  # a file beside this one


class State(TypedDict):
    text: str
    log: Annotated[list, operator.add]


def loud(state: State) -> dict:
    return {"text": shout(state["text"]), "log": ["loud"]}


builder = StateGraph(State)
builder.add_node("loud", loud)
builder.add_edge(START, "loud")
builder.add_edge("loud", END)
graph = builder.compile()
'''


def project(root: Path, graphs: str) -> Path:
    """A directory with mygraph.py, the helpers.py it imports, and a graphwire.toml naming ``graphs``."""
    root.mkdir(parents=True)
    (root / "mygraph.py").write_text(GRAPH)
    (root / "helpers.py").write_text("def shout(text: str) -> str:\n    return text.upper() + '!'\n")
    (root / "graphwire.toml").write_text(f"[graphs]\n{graphs}\n")
    return root / "graphwire.toml"


@pytest.mark.parametrize("spec", ["mygraph:graph", "./mygraph.py:graph"], ids=["module", "file path"])
def test_a_graph_beside_the_config_serves_without_pythonpath(
    start_server: Callable[..., ServerProcess], tmp_path: Path, spec: str
) -> None:
    config = project(tmp_path / "project", f'mine = "{spec}"')
    srv = start_server(config=config, pythonpath=False)  # cwd: the server's own directory, not the project
    with srv.client() as client:
        assert [g.name for g in client.graphs()] == ["mine"]
        result = client.invoke("mine", "t1", {"text": "hi", "log": []}, timeout=30)
    assert result.values == {"text": "HI!", "log": ["loud"]}


def serve_and_fail(config: Path, cwd: Path) -> str:
    """``graphwire serve --config CONFIG`` that must fail to start; its stderr."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--config", str(config), "--address", "127.0.0.1:0",
         "--checkpointer", ":memory:"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    return done.stderr


def test_a_spec_that_does_not_import_says_what_was_tried(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    config = project(tmp_path / "p1", 'mine = "mygrahp:graph"')
    err = serve_and_fail(config, elsewhere)
    assert "graph 'mine': no module named 'mygrahp'" in err
    assert str(tmp_path / "p1") in err and str(elsewhere) in err  # the directories searched
    assert "Put mygrahp.py in one of those directories" in err and 'mine = "./path/to/mygrahp.py' in err

    config = project(tmp_path / "p2", 'mine = "mygraph:grahp"')
    err = serve_and_fail(config, elsewhere)
    assert f"{tmp_path / 'p2' / 'mygraph.py'} has no attribute 'grahp'" in err
    assert "it has builder, graph" in err

    config = project(tmp_path / "p3", 'mine = "./graphs/mygraph.py:graph"')
    err = serve_and_fail(config, elsewhere)
    assert f"the file {tmp_path / 'p3' / 'graphs' / 'mygraph.py'} does not exist" in err
    assert "relative to the config file's directory" in err

    config = project(tmp_path / "p4", 'mine = "mygraph:graph"')
    (tmp_path / "p4" / "helpers.py").unlink()
    err = serve_and_fail(config, elsewhere)
    assert "mygraph.py was found, but it imports something missing: No module named 'helpers'" in err
    assert "install 'helpers' where the server runs" in err
    assert "Traceback" not in err


def test_init_writes_a_graph_that_serves_at_once(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "server", "init", "starter"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "cd starter && graphwire serve" in done.stdout
    assert sorted(p.name for p in (tmp_path / "starter").iterdir()) == ["agent.py", "graphwire.toml"]
    again = subprocess.run(
        [sys.executable, "-m", "server", "init", "starter"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert again.returncode == 2 and "never overwrites" in again.stderr
    (tmp_path / "notes.txt").write_text("a file, not a directory\n")
    (tmp_path / "my project").mkdir()
    for where, code, said in (
        ("notes.txt/agent", 2, "graphwire init: cannot write notes.txt/agent: Not a directory"),
        ("my project", 0, "serve it:  cd 'my project' && graphwire serve"),  # a path a shell can take as it is
    ):
        done = subprocess.run([sys.executable, "-m", "server", "init", where], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == code and said in done.stdout + done.stderr, (done.stdout, done.stderr)
        assert "Traceback" not in done.stderr

    srv = start_server(config=tmp_path / "starter" / "graphwire.toml", pythonpath=False)
    with srv.client() as client:
        result = client.invoke("agent", "t1", {"messages": [{"role": "user", "content": "hello"}]}, timeout=30)
    assert result.values["messages"][-1]["content"] == "You said: hello"
    assert message_role(result.values["messages"][-1]) == "assistant"  # either form (the langchain extra or not)


def test_settings_from_environment_variables(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    """GRAPHWIRE_<KEY> sets what the file would; the flags still win."""
    project(tmp_path / "project", 'mine = "mygraph:graph"')
    srv = start_server(
        pythonpath=False,
        graphs={},
        env={"GRAPHWIRE_CONFIG": str(tmp_path / "project" / "graphwire.toml"), "GRAPHWIRE_MAX_MESSAGE_BYTES": "2000"},
    )
    with srv.client() as client:
        assert [g.name for g in client.graphs()] == ["mine"]
        with pytest.raises(Exception, match="RESOURCE_EXHAUSTED"):
            client.invoke("mine", "t1", {"text": "x" * 5000, "log": []}, timeout=30)
