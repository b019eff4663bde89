"""``graphwire assistants`` against a live server: tables, ``--json``, versions, tenants, bad input.

The CLI runs in this process (``server.cli.main``), from a directory with no
``graphwire.toml`` and without the developer's ``GRAPHWIRE_*`` settings; the
server (``questions`` and ``user_memories`` of tests/graphs.py) has two
tenants' tokens.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.cli import main
from tests.conftest import SETTINGS_VARS, ServerProcess, start_server_process

ACME = "acme-token-0123456789"
BETA = "beta-token-0123456789"
#: The id LangGraph's Agent Server gives the graph "questions"'s default assistant.
DEFAULT_QUESTIONS = str(uuid.uuid5(uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), "questions"))


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp("cli-assistants")
    tokens = workdir / "tokens.toml"
    tokens.write_text(f'acme = "{ACME}"\nbeta = "{BETA}"\n')
    graphs = {"questions": "tests.graphs:questions", "user_memories": "tests.graphs:user_memories"}
    server = start_server_process(workdir, graphs=graphs, args=["--auth-tokens", str(tokens)])
    yield server
    assert server.terminate() == 0, server.log()


@pytest.fixture
def cli(srv: ServerProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """``cli(*args, token=ACME)``: the exit code, stdout and stderr of ``graphwire assistants ARGS``."""
    monkeypatch.chdir(tmp_path)
    for name in SETTINGS_VARS:
        monkeypatch.delenv(name, raising=False)

    def run(*args: str, token: str = ACME) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["assistants", *args, "--address", srv.address, "--token", token])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _json(out: str) -> Any:
    return json.loads(out)


def test_create_get_update_versions_set_version_list_and_delete(cli: Any) -> None:
    mark = json.dumps({"test": uuid.uuid4().hex})
    code, out, err = cli("create", "user_memories", "--name", "Greeter", "--config", '{"recursion_limit": 7}',
                         "--context", '{"user_id": "ada", "locale": "fr"}', "--metadata", mark, "--json")  # fmt: skip
    assert code == 0, err
    made = _json(out)
    assert (made["graph"], made["name"], made["version"], made["config"]) == ("user_memories", "Greeter", 1, {"recursion_limit": 7})
    assert made["context"] == {"user_id": "ada", "locale": "fr"} and made["description"] is None
    aid = made["assistant_id"]

    code, out, _ = cli("get", aid)
    assert code == 0
    assert out.splitlines()[0] == f"assistant {aid}"
    assert "name:        Greeter" in out and 'context:     {"user_id":"ada","locale":"fr"}' in out and "version:     1 " in out

    code, out, err = cli("update", aid, "--context", '{"user_id": "bo"}', "--metadata", '{"tier": 2}', "--json")
    assert code == 0, err
    v2 = _json(out)
    assert (v2["version"], v2["context"], v2["metadata"]) == (2, {"user_id": "bo"}, {**json.loads(mark), "tier": 2})

    code, out, _ = cli("versions", aid)
    rows = out.splitlines()
    assert code == 0 and rows[0].split()[:3] == ["VERSION", "UPDATED", "(UTC)"]
    assert [r.split()[0] for r in rows[1:]] == ["2", "1"]
    assert '{"user_id":"bo"}' in rows[1] and '{"user_id":"ada","locale":"fr"}' in rows[2]

    code, out, _ = cli("set-version", aid, "1", "--json")
    assert code == 0 and _json(out)["version"] == 1 and _json(out)["context"]["user_id"] == "ada"

    code, out, _ = cli("list", "--metadata", mark)
    assert code == 0
    header, row, footer = out.splitlines()
    assert header.split() == ["ID", "GRAPH", "NAME", "VERSION", "UPDATED", "(UTC)"]
    assert row.split()[:4] == [aid, "user_memories", "Greeter", "1"]
    assert footer == "(1-1 of 1 assistant(s))"
    code, out, _ = cli("search", "--metadata", mark, "--graph", "questions", "--json")
    assert code == 0 and _json(out) == []

    code, out, _ = cli("delete", aid)
    assert code == 0 and out.strip() == f"deleted assistant {aid!r}"
    code, out, _ = cli("delete", aid, "--json")
    assert code == 0 and _json(out) == {"assistant_id": aid, "deleted": False}
    code, _, err = cli("get", aid)
    assert code == 1 and err.startswith("graphwire: NOT_FOUND: ")


def test_list_pages_sorted_by_name(cli: Any) -> None:
    mark = json.dumps({"test": uuid.uuid4().hex})
    for i in range(3):
        assert cli("create", "questions", "--name", f"Pager {i}", "--metadata", mark)[0] == 0
    code, out, _ = cli("list", "--metadata", mark, "--sort-by", "name", "--asc", "--limit", "2", "--offset", "1")
    rows = out.splitlines()
    assert code == 0 and [r.split()[2:4] for r in rows[1:-1]] == [["Pager", "1"], ["Pager", "2"]]
    assert rows[-1] == "(2-3 of 3 assistant(s))"
    code, out, _ = cli("list", "--metadata", mark, "--name", "no such name")
    assert code == 0 and out.strip() == "(none of 0 assistant(s))"


def test_tenants_see_their_own_and_may_not_change_the_shared_defaults(cli: Any) -> None:
    code, out, _ = cli("get", DEFAULT_QUESTIONS, "--json", token=BETA)
    assert code == 0 and _json(out)["metadata"] == {"created_by": "system"} and _json(out)["name"] == "questions"
    code, _, err = cli("update", DEFAULT_QUESTIONS, "--name", "mine now", token=BETA)
    assert code == 1 and err.startswith("graphwire: PERMISSION_DENIED: "), err
    code, _, err = cli("delete", DEFAULT_QUESTIONS, token=BETA)
    assert code == 1 and "PERMISSION_DENIED" in err

    aid = f"cli-{uuid.uuid4().hex[:8]}"
    assert cli("create", "questions", "--id", aid, "--name", "Acme's")[0] == 0
    code, _, err = cli("get", aid, token=BETA)
    assert code == 1 and "NOT_FOUND" in err
    code, _, err = cli("create", "questions", "--id", aid)
    assert code == 1 and "ALREADY_EXISTS" in err
    code, out, _ = cli("create", "user_memories", "--id", aid, "--if-exists", "do_nothing", "--json")
    assert code == 0 and _json(out)["name"] == "Acme's" and _json(out)["graph"] == "questions"


def test_bad_input_says_what_is_wrong(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli("create", "nope")
    assert code == 1 and "NOT_FOUND: graph: unknown graph 'nope'" in err
    code, _, err = cli("create", "questions", "--config", '{"callbacks": ["x"]}')
    assert code == 1 and "INVALID_ARGUMENT: config_json.callbacks" in err
    code, _, err = cli("update", "whatever")
    assert code == 2 and "give what to change" in err
    for text, why in (("{nope", "not JSON"), ("[1]", "must be a JSON object, not list")):
        with pytest.raises(SystemExit) as stopped:
            cli("create", "questions", "--context", text)
        assert stopped.value.code == 2 and f"argument --context: {why}" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        cli("list", "--limit", "-1")
    assert stopped.value.code == 2 and "argument --limit: must be 0 or more, not -1" in capsys.readouterr().err
