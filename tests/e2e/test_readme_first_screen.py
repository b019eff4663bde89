"""The README's first screen, "From a clone to your own graph", as a newcomer runs it.

Its shell block is run from ``graphwire init`` on (the venv and the pip
install are this test run's own): ``graphwire init my-agent``, then
``graphwire serve`` in ``my-agent`` with nothing else (no flags but a free
port, no PYTHONPATH). Then each of its calls, as written, with the README's
address replaced by the server's: grpcurl (through reflection and the proto3
JSON mapping, as grpcurl does it), the Python block, the JavaScript block in
a project that installed the client, the Go program (the README's GOPATH
link, made at the clone's root, then its ``go run`` line). Every output its
comments promise must be printed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests._go import go, go_env
from tests._readme import README, blocks, grpcurl, grpcurl_commands, promised_in_order, promises, section, typescript_project

SECTION = "From a clone to your own graph"
README_ADDRESS = "127.0.0.1:50051"
REPO = README.parent


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_") and k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The first screen's commands from `graphwire init` on; the address `graphwire serve` listens on."""
    (sh,) = blocks(SECTION, "sh")[:1]
    lines = [line.split("#", 1)[0].strip() for line in sh.splitlines()]
    assert "graphwire init my-agent && cd my-agent" in lines and "graphwire serve" in lines
    home = tmp_path_factory.mktemp("newcomer")
    init = subprocess.run([sys.executable, "-m", "server", *shlex.split("init my-agent")], cwd=home, env=clean_env(),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert init.returncode == 0, init.stderr
    project = home / "my-agent"
    # The README's address is the default; this test asks for a free port instead (the only change).
    serve = subprocess.Popen([sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0"], cwd=project,
                             env=clean_env() | {"PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline().decode()
        assert line.startswith("graphwire listening on "), serve.stderr.read().decode() if serve.stderr else line
        yield line.split()[-1]
    finally:
        serve.terminate()
        assert serve.wait(timeout=30) == 0


def test_grpcurl(served: str) -> None:
    (sh,) = [code for code in blocks(SECTION, "sh") if "grpcurl" in code]
    ((body, method),) = grpcurl_commands(sh)
    with grpc.insecure_channel(served) as channel:
        printed = grpcurl(channel, method, body)
    assert "base64" not in body
    finished = json.loads(printed[-1])["runFinished"]
    assert json.loads(finished["valuesJson"])["messages"][-1]["content"] == "You said: hi"
    promised = sh.rsplit("# ", 1)[1].strip()  # what the command's comment says it prints
    assert promised_in_order("\n".join(printed), [promised]) == [], printed[-1]


def test_python(served: str, tmp_path: Path) -> None:
    (code,) = blocks(SECTION, "python")
    script = tmp_path / "call.py"
    script.write_text(code.replace(README_ADDRESS, served))
    done = subprocess.run([sys.executable, str(script)], env=clean_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert promised_in_order(done.stdout, promises(code, "#")) == [], done.stdout


def test_javascript(served: str, tmp_path: Path) -> None:
    (code,) = blocks(SECTION, "js")
    with typescript_project(tmp_path / "project") as project:
        (project / "quickstart.mjs").write_text(code.replace(README_ADDRESS, served))
        done = subprocess.run(["node", "quickstart.mjs"], cwd=project, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert promised_in_order(done.stdout, promises(code, "//")) == [], done.stdout


def test_go(served: str, tmp_path: Path) -> None:
    """The README's own commands: the GOPATH link, made at the clone's root, then its `go run` line."""
    (code,) = blocks(SECTION, "go")
    (link,) = [sh for sh in blocks(SECTION, "sh") if "ln -sfn" in sh]
    run = re.search(r"run it with `([^`]*go run main\.go)`", section(SECTION))
    assert run is not None, "the first screen says how to run main.go"
    gopath = tmp_path / "gopath"  # the README's /tmp/gopath, made here
    # go_env checks that Go and Debian's packages are there (else skips); the README's commands set GOPATH.
    env = {k: v for k, v in go_env(tmp_path / "unused").items() if k not in ("GOPATH", "GO111MODULE", "PWD")}
    linked = subprocess.run(["bash", "-ec", link.replace("/tmp/gopath", str(gopath))], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert linked.returncode == 0, linked.stderr
    main = tmp_path / "hello" / "main.go"
    main.parent.mkdir()
    main.write_text(code.replace(README_ADDRESS, served))
    done = go(env | {"PWD": str(main.parent)}, "bash", "-ec", run.group(1).replace("/tmp/gopath", str(gopath)), cwd=main.parent)
    assert done.returncode == 0, done.stderr
    assert promised_in_order(done.stdout, promises(code, "//")) == [], done.stdout
