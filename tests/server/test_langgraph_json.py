"""langgraph.json read as graphwire's configuration: every key either served, mapped onto its graphwire
counterpart, or named once as not honoured; what a wrong one says; and what the process gets before
the graphs load (the env, the dependencies, the import swap's decision)."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from server._langgraph_json import read_env_file
from server._prepare import prepare_process, swap_choice
from server.config import load_config

PROJECT = {
    "$schema": "https://langgra.ph/schema.json",
    "python_version": f"{sys.version_info[0]}.{sys.version_info[1]}",
    "dependencies": [".", "./flat_pkg", "./src_project", "./modules", "acme-weather>=0.2", "git+https://example.com/x.git"],
    "graphs": {"agent": "./agent.py:graph", "research": {"path": "research.graph:make", "description": "Looks things up."}},
    "env": ".env",
    "store": {
        "index": {"embed": "openai:text-embedding-3-small", "dims": 1536, "fields": ["text"]},
        "ttl": {"default_ttl": 60, "refresh_on_read": True, "sweep_interval_minutes": 5},
    },
    "checkpointer": {"ttl": {"strategy": "delete", "default_ttl": 43200}},
    "dockerfile_lines": ["RUN true"],
    "auth": {"path": "./auth.py:auth"},
    "http": {"app": "./webapp.py:app", "cors": {"allow_origins": ["*"]}},
    "colour": "blue",
    "graphwire": {"address": "127.0.0.1:0", "checkpointer": ":memory:", "import_swap": False},
}


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's own directory: no file of the checkout's is read."""
    monkeypatch.chdir(tmp_path)


def write_project(root: Path, config: dict[str, Any] | None = None) -> Path:
    (root / "flat_pkg").mkdir()
    (root / "flat_pkg" / "__init__.py").write_text("")
    (root / "src_project" / "src" / "lib").mkdir(parents=True)
    (root / "src_project" / "pyproject.toml").write_text('[project]\nname = "lib"\n')
    (root / "modules").mkdir()
    (root / "modules" / "requirements.txt").write_text("# pinned\nacme-fares==0.27  # a client\n-r other.txt\n")
    (root / ".env").write_text("MODEL=gpt\n")
    path = root / "langgraph.json"
    path.write_text(json.dumps(PROJECT if config is None else config))
    return path


def test_every_key_is_served_mapped_or_named(tmp_path: Path) -> None:
    write_project(tmp_path)
    cfg = load_config(None, None, environ={})  # ./langgraph.json, found with no graphwire.toml beside it
    assert cfg.graphs == {"agent": "./agent.py:graph", "research": "research.graph:make"}
    assert cfg.store_index == {"embed": "openai:text-embedding-3-small", "dims": 1536, "fields": ["text"]}
    assert cfg.store_ttl == {"default_ttl": 60, "refresh_on_read": True, "sweep_interval_minutes": 5}
    assert (cfg.address, cfg.checkpointer, cfg.import_swap, cfg.config_dir) == ("127.0.0.1:0", ":memory:", False, str(tmp_path))
    assert cfg.http_app == "./webapp.py:app"  # the project's own routes (tests/http/test_custom_app.py serves them)
    project = cfg.project
    assert project is not None and project.path == str(tmp_path / "langgraph.json")
    assert project.descriptions == {"research": "Looks things up."}
    assert (project.env, project.env_file) == ({"MODEL": "gpt"}, str(tmp_path / ".env"))
    assert project.import_paths == (str(tmp_path), str(tmp_path / "src_project"), str(tmp_path / "src_project" / "src"),
                                    str(tmp_path / "modules"))  # fmt: skip  # flat_pkg imports from its parent: the project
    assert project.packages == ("acme-fares", "acme-weather")  # the URL names no package
    named = [note.split(":")[0] for note in project.notes]
    assert named == ["langgraph.json http.cors", "langgraph.json checkpointer.ttl", "langgraph.json dockerfile_lines",
                     "langgraph.json auth", "langgraph.json colour"]  # fmt: skip
    assert "graphwire prune --older-than" in project.notes[1] and "auth_token" in project.notes[3]


def test_graphwire_toml_comes_first_and_config_names_either(tmp_path: Path) -> None:
    write_project(tmp_path)
    (tmp_path / "graphwire.toml").write_text('[graphs]\nmine = "./mine.py:graph"\n')
    assert load_config(None, None, environ={}).graphs == {"mine": "./mine.py:graph"}
    assert load_config("langgraph.json", None, environ={}).project is not None
    cfg = load_config(None, {"graphs": {"x": "m:g"}}, environ={"GRAPHWIRE_CONFIG": "langgraph.json"})
    assert cfg.graphs == {"x": "m:g"} and cfg.project is not None  # flags still beat the file


def test_an_aegra_project_is_read_as_its_langgraph_json(tmp_path: Path) -> None:
    (tmp_path / "aegra.json").write_text(json.dumps({"graphs": {"agent": "./agent.py:graph"}, "http": {"app": "./app.py:app"}}))
    cfg = load_config(None, None, environ={})  # ./aegra.json, with no graphwire.toml nor langgraph.json beside it
    assert cfg.graphs == {"agent": "./agent.py:graph"}
    assert cfg.project is not None and cfg.project.path == str(tmp_path / "aegra.json")
    assert cfg.http_app == "./app.py:app" and cfg.project.notes == ()  # its custom routes, as Aegra serves them
    write_project(tmp_path)  # a langgraph.json beside it comes first
    assert load_config(None, None, environ={}).project.path == str(tmp_path / "langgraph.json")  # type: ignore[union-attr]


def test_dev_is_serve_reloading_with_the_http_api_where_langgraph_dev_has_it(tmp_path: Path) -> None:
    from server.cli import DEV_HTTP, build_parser, dev_argv

    def argv(*given: str) -> list[str]:
        args = build_parser().parse_args(["dev", *given])
        args.argv = ["dev", *given]
        return dev_argv(args)

    (tmp_path / "graphwire.toml").write_text('[graphs]\nmine = "./mine.py:graph"\n')
    assert argv("--address", "127.0.0.1:0") == ["serve", "--address", "127.0.0.1:0", "--reload", "--http", DEV_HTTP]
    assert argv("--http", "127.0.0.1:9") == ["serve", "--http", "127.0.0.1:9", "--reload"]  # the flag wins
    (tmp_path / "graphwire.toml").write_text('http = "127.0.0.1:7"\n[graphs]\nmine = "./mine.py:graph"\n')
    assert argv() == ["serve", "--reload"]  # so does the config's
    # langgraph dev's own command line works as it is: --host/--port place the HTTP API (over the config's),
    # --no-reload serves once, --no-browser is taken (graphwire opens none), --server-log-level is --log-level.
    assert argv("--port", "8123", "--no-browser") == ["serve", "--reload", "--http", "127.0.0.1:8123"]
    assert argv("--host=0.0.0.0", "--no-reload", "--server-log-level", "DEBUG") == [
        "serve", "--log-level", "DEBUG", "--http", "0.0.0.0:2024",
    ]  # fmt: skip
    # What graphwire cannot honour is refused, saying what to do instead, not silently dropped.
    with pytest.raises(ValueError, match="--n-jobs-per-worker is langgraph dev's and not honoured here"):
        argv("--n-jobs-per-worker", "4")
    with pytest.raises(ValueError, match="--tunnel is langgraph dev's and not honoured here: graphwire opens no tunnel"):
        argv("--tunnel")
    with pytest.raises(ValueError, match="not both"):
        argv("--http", "127.0.0.1:9", "--port", "1")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"graphs": ["./agent.py:graph"]}, 'graphs must be an object of name: "./file.py:graph"'),
        ({"graphs": {"a": {"description": "no path"}}}, "graph 'a' needs \"path\": \"./file.py:graph\""),
        ({"graphs": {}}, "no graphs configured: langgraph.json 'langgraph.json' names none"),
        ({"env": "."}, "env file '.' cannot be read (Is a directory"),
        ({"env": ["KEY"]}, "env must be an object of variables or the path of a .env file"),
        ({"http": {"app": "./app.py:app", "enable_custom_route_auth": True}}, "the routes of http.app would be served open"),
        ({"http": {"app": ["./app.py:app"]}}, 'http.app must be a text "./path/to/webapp.py:app"'),
        ({"dependencies": ["./nowhere"]}, "the local dependency './nowhere' is not a directory"),
        ({"dependencies": "."}, 'dependencies must be a list of texts, e.g. [".", "langchain-openai"]'),
        ({"python_version": "3.99"}, "asks for Python 3.99, and graphwire runs on Python"),
        ({"python_version": 3.11}, 'python_version must be "major.minor", e.g. "3.11", not 3.11'),
        ({"store": {"ttl": {"default_ttl": -1}}}, "store_ttl.default_ttl must be a number of minutes above 0"),
        ({"graphwire": {"adress": "x"}}, "the graphwire section's unknown key(s) ['adress']"),
        ({"graphwire": {"import_swap": "no"}}, "the graphwire section's import_swap must be true or false, not 'no'"),
    ],
)
def test_a_wrong_key_says_which_and_why(tmp_path: Path, change: dict[str, Any], said: str) -> None:
    write_project(tmp_path, {**{"graphs": {"a": "./a.py:graph"}}, **change})
    with pytest.raises(ValueError) as failed:
        load_config(None, None, environ={})
    assert said in str(failed.value)


def test_not_json_says_where(tmp_path: Path) -> None:
    (tmp_path / "langgraph.json").write_text('{"graphs": {"a": "./a.py:graph",}}')
    with pytest.raises(ValueError, match=r"langgraph.json 'langgraph.json' is not JSON: .*line 1"):
        load_config(None, None, environ={})


def test_a_missing_env_file_is_a_note(tmp_path: Path) -> None:
    """As `langgraph dev` starts without it: LangGraph's project templates name `.env` and ship `.env.example`."""
    write_project(tmp_path, {"graphs": {"a": "./a.py:graph"}, "env": ".env"})
    (tmp_path / ".env").unlink()
    project = load_config(None, None, environ={}).project
    assert project is not None and (project.env, project.env_file) == ({}, str(tmp_path / ".env"))
    assert project.notes == (f"langgraph.json env: the file '.env' does not exist ({tmp_path / '.env'}): no variables are taken from it",)


def test_an_older_python_asked_for_is_a_note(tmp_path: Path) -> None:
    write_project(tmp_path, {"graphs": {"a": "./a.py:graph"}, "python_version": "3.9"})
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert load_config(None, None, environ={}).project.notes == (  # type: ignore[union-attr]
        f"langgraph.json python_version: 3.9 asked, serving on Python {here}",
    )


def test_env_files_as_dotenv_writes_them(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# comment\n\nexport A=1\nB = two words # a comment\nC=\"quoted # kept\\nline\"\nD='single'\nnot an assignment\nE=\n"
    )
    assert read_env_file(str(tmp_path / ".env")) == {"A": "1", "B": "two words", "C": "quoted # kept\nline", "D": "single", "E": ""}


def test_import_swap_from_the_environment() -> None:
    env = {"GRAPHWIRE_GRAPHS": "a=m:g"}
    assert load_config(None, None, environ=env).import_swap is None
    assert load_config(None, None, environ={**env, "GRAPHWIRE_IMPORT_SWAP": "off"}).import_swap is False
    assert load_config(None, {"import_swap": True}, environ={**env, "GRAPHWIRE_IMPORT_SWAP": "0"}).import_swap is True
    with pytest.raises(ValueError, match=r"GRAPHWIRE_IMPORT_SWAP must be true or false \(1 or 0, on or off\), not 'maybe'"):
        load_config(None, None, environ={**env, "GRAPHWIRE_IMPORT_SWAP": "maybe"})


def test_the_swap_decision() -> None:
    assert swap_choice(None) == swap_choice(None, langgraph_graphs=()) and swap_choice(None).on
    assert not swap_choice(False).on and swap_choice(True).on
    off = swap_choice(None, langgraph_graphs=["legacy"])  # issue 31's runtime = "langgraph": off for the process
    assert not off.on and off.why == "graph(s) legacy run on LangGraph itself, so langgraph imports must get it"
    with pytest.raises(ValueError, match="import_swap = true, but graph"):
        swap_choice(True, langgraph_graphs=["legacy"])
    late = swap_choice(None, langgraph_imported="langgraph.graph")
    assert not late.on and "was imported before the server started" in late.why
    with pytest.raises(ValueError, match="start graphwire serve in a process of its own"):
        swap_choice(True, langgraph_imported="langgraph.graph")


def test_the_process_gets_the_env_and_the_dependencies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    write_project(tmp_path)
    (tmp_path / ".env").write_text("GW_TEST_MODEL=from-file\nGW_TEST_KEPT=from-file\nGRAPHWIRE_GRACE_SECONDS=1\n")
    monkeypatch.setenv("GW_TEST_KEPT", "from-the-environment")
    for key in ("GW_TEST_MODEL", "GRAPHWIRE_GRACE_SECONDS"):  # unset, and unset again after the test
        monkeypatch.setenv(key, "x")
        monkeypatch.delenv(key)
    cfg = load_config(None, None, environ={})
    with caplog.at_level(logging.INFO, logger="graphwire.server"):
        choice = prepare_process(cfg)
    assert not choice.on  # the project's graphwire section says import_swap = false
    assert os.environ["GW_TEST_MODEL"] == "from-file" and os.environ["GW_TEST_KEPT"] == "from-the-environment"
    assert sys.path[-4:] == list(cfg.project.import_paths)  # type: ignore[union-attr]
    lines = [r.getMessage() for r in caplog.records]
    assert "2 variable(s) from .env set for the graphs (GW_TEST_KEPT already set in the environment, kept)" in lines
    assert any(line.startswith("GRAPHWIRE_GRACE_SECONDS: set for the graphs, not read as graphwire settings") for line in lines)
    assert "langgraph.json dependencies not installed here: acme-fares, acme-weather (pip install them where graphwire serve runs)" in lines
    assert any(line.startswith("import swap off (import_swap is false): the graphs' `langgraph` imports get") for line in lines)
    assert sum(line.startswith("langgraph.json ") and "not honoured" in line for line in lines) == 4


def test_custom_auth_not_run_is_not_served_open_to_other_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """langgraph.json's auth (custom Auth handlers) is not run: on loopback that is a note at start; listening
    for other hosts without graphwire's tokens, the start is refused."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    write_project(tmp_path)
    wide = load_config(None, {"http": "0.0.0.0:0"}, environ={})
    assert wide.project is not None and wide.project.auth == "./auth.py:auth"
    with pytest.raises(ValueError, match=r"names custom auth \(./auth.py:auth\), which graphwire does not run: on 0.0.0.0:0 this"):
        prepare_process(wide)
    prepare_process(load_config(None, {"http": "127.0.0.1:0"}, environ={}))  # loopback: the note only
    prepare_process(load_config(None, {"http": "0.0.0.0:0", "auth_token": "t0ken-0123456789abcdef"}, environ={}))
