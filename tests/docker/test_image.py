"""The container image: its build context, and the image itself where it can be built.

Without a container engine (``docker info`` or ``podman info`` failing) the
image tests skip with the reason, in CI too: machines without one cannot
build images, and the pieces that need no engine are tested here and in
tests/server (the health check against real servers, settings from the
environment). What needs no engine:

- the context ``.dockerignore`` lets in is exactly what the Dockerfile copies,
  and small (it was every file of the checkout: 157 MB after the tests);
- the Dockerfile passes ``serve`` no flags, and its health check is ``graphwire
  health``, which follows the configuration.

With an engine: the image builds; the demo serves on SQLite and reports
healthy; a mounted directory's config and graph are what it serves (its
``checkpointer`` included, which the old ENTRYPOINT's flags overrode); a
code change rebuilds without reinstalling the dependencies; the final image
holds no wheels and no sources.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._needs import missing

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
CONTEXT_LIMIT = 4 * 1024 * 1024  # bytes; the code is well under it
HEALTHY_WITHIN = 120.0  # seconds for a container to report healthy


# -- the build context -------------------------------------------------------------


def _pattern(p: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regex over slash-separated paths (Docker's rules: * stays in one part)."""
    out, i = "", 0
    while i < len(p):
        if p.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif p.startswith("**", i):
            out, i = out + ".*", i + 2
        elif p[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif p[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(p[i]), i + 1
    return re.compile(out)


def context_files() -> dict[str, int]:
    """The files ``docker build .`` would send, with their sizes, by the rules of .dockerignore."""
    rules = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            negated = line.startswith("!")
            rules.append((negated, _pattern(line.lstrip("!").strip("/"))))

    def excluded(path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        out = False
        for negated, rule in rules:  # the last matching rule wins; a directory's rule covers what it holds
            if any(rule.fullmatch(p) for p in prefixes):
                out = not negated
        return out

    found = {}
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(top, name)
            rel = path.relative_to(ROOT).as_posix()
            if not excluded(rel) and path.is_file():
                found[rel] = path.stat().st_size
    return found


def copy_sources() -> list[str]:
    """The context paths the Dockerfile's COPY lines read (not those from another stage)."""
    sources = []
    for line in DOCKERFILE.read_text().splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and not any(w.startswith("--from") for w in words):
            sources += [w.rstrip("/") for w in words[1:-1] if not w.startswith("--")]
    return sources


def test_the_context_is_what_the_dockerfile_copies_and_small() -> None:
    files, sources = context_files(), copy_sources()
    for source in sources:
        assert any(f == source or f.startswith(source + "/") for f in files), f"COPY {source}: not in the context"
    strays = sorted(f for f in files if not any(f == s or f.startswith(s + "/") for s in sources))
    assert strays == [], f"in the context but never copied: {strays[:10]}"
    assert "tests/conftest.py" not in files and not any("node_modules" in f or f.endswith(".db") for f in files)
    assert sum(files.values()) < CONTEXT_LIMIT, f"{sum(files.values())} bytes"


def test_serve_gets_no_flags_and_the_health_check_follows_the_config() -> None:
    text = DOCKERFILE.read_text()
    assert re.search(r'^ENTRYPOINT \["graphwire", "serve"\]$', text, re.MULTILINE)
    assert re.search(r'^HEALTHCHECK .*CMD \["graphwire", "health"\]$', text, re.MULTILINE)
    assert "50051" not in text.split("HEALTHCHECK", 1)[1].split("\n", 1)[0]  # no port fixed in the check


# -- the image (needs a container engine) -----------------------------------------------


def _engine() -> str:
    for tool in ("docker", "podman"):
        if shutil.which(tool) is None:
            continue
        probe = subprocess.run([tool, "info"], capture_output=True, text=True, timeout=60, check=False)
        if probe.returncode == 0:
            return tool
    missing("no container engine here (docker info and podman info fail): the image cannot be built", ci_fails=False)


def _run(engine: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([engine, *args], capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{engine} {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def engine() -> str:
    return _engine()


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the build context (so a test may edit the code and rebuild)."""
    root = tmp_path_factory.mktemp("context")
    for rel in context_files():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, root / rel)
    shutil.copy2(DOCKERFILE, root / "Dockerfile")
    shutil.copy2(ROOT / ".dockerignore", root / ".dockerignore")
    return root


@pytest.fixture(scope="module")
def image(engine: str, context: Path) -> Iterator[str]:
    tag = f"graphwire-test:{uuid.uuid4().hex[:8]}"
    _run(engine, "build", "-t", tag, str(context))
    yield tag
    subprocess.run([engine, "rmi", "-f", tag], capture_output=True, timeout=120, check=False)


class Container:
    def __init__(self, engine: str, image: str, *args: str) -> None:
        self.engine, self.name = engine, f"graphwire-test-{uuid.uuid4().hex[:8]}"
        _run(engine, "run", "-d", "--name", self.name, "-p", "127.0.0.1::50051", *args, image)
        port = _run(engine, "port", self.name, "50051").stdout.split(":")[-1].strip()
        self.address = f"127.0.0.1:{port}"

    def health(self) -> str:
        done = _run(self.engine, "inspect", "--format", "{{.State.Health.Status}}", self.name)
        return done.stdout.strip()

    def wait_healthy(self) -> None:
        """Until the engine reports the health check passing: its health_status events, read with a deadline."""
        cmd = [self.engine, "events", "--filter", f"container={self.name}", "--filter", "event=health_status"]
        events = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert events.stdout is not None
            deadline = time.monotonic() + HEALTHY_WITHIN
            with selectors.DefaultSelector() as sel:
                sel.register(events.stdout, selectors.EVENT_READ)
                while (status := self.health()) != "healthy":  # checked after the stream opened: no event is missed
                    assert status in ("starting", ""), f"health {status!r}:\n{self.logs()}"
                    remaining = deadline - time.monotonic()
                    assert remaining > 0, f"not healthy after {HEALTHY_WITHIN}s:\n{self.logs()}"
                    if sel.select(remaining):
                        assert events.stdout.readline(), f"{self.engine} events ended:\n{self.logs()}"  # an event: look again
        finally:
            events.kill()
            events.wait(timeout=30)

    def logs(self) -> str:
        done = subprocess.run([self.engine, "logs", self.name], capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr

    def remove(self) -> None:
        subprocess.run([self.engine, "rm", "-f", "-v", self.name], capture_output=True, timeout=120, check=False)


def test_the_demo_serves_on_sqlite_and_is_healthy(engine: str, image: str) -> None:
    from graphwire import Client

    box = Container(engine, image)
    try:
        box.wait_healthy()
        with Client(box.address) as client:
            asked = client.invoke("reminders", "t1", {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]})
            assert asked.interrupted
        assert "checkpointer: /data/graphwire.db" in box.logs()
        empty = subprocess.run([engine, "run", "--rm", "--entrypoint", "sh", image, "-c", "ls /wheels /src 2>&1; pip --version"],
                               capture_output=True, text=True, timeout=120)  # fmt: skip
        assert "No such file" in empty.stdout and empty.stdout.count("No such file") == 2
    finally:
        box.remove()


def test_a_mounted_config_is_what_serves(engine: str, image: str, tmp_path: Path) -> None:
    from graphwire import Client

    project = tmp_path / "project"
    project.mkdir()
    (project / "graphwire.toml").write_text(
        'address = "0.0.0.0:50051"\ncheckpointer = "/data/mine.db"\n[graphs]\nagent = "./agent.py:graph"\n'
    )
    subprocess.run([sys.executable, "-m", "server", "init", str(tmp_path / "starter")], check=True, cwd=ROOT, capture_output=True)
    shutil.copy(tmp_path / "starter" / "agent.py", project / "agent.py")
    os.chmod(project, 0o755)
    box = Container(engine, image, "-v", f"{project}:/app:ro")
    try:
        box.wait_healthy()
        with Client(box.address) as client:
            assert [g.name for g in client.graphs()] == ["agent"]
            reply = client.invoke("agent", "t1", {"messages": [{"role": "user", "content": "hi"}]})
            assert reply.values["messages"][-1]["content"] == "You said: hi"
        assert "checkpointer: /data/mine.db" in box.logs()  # the file's, not a flag's
    finally:
        box.remove()


def test_a_code_change_keeps_the_dependency_layer(engine: str, image: str, context: Path) -> None:
    (context / "server" / "cli.py").write_text((context / "server" / "cli.py").read_text() + "\n# an edit\n")
    done = _run(engine, "build", "--progress=plain", "-t", f"{image}-edited", str(context))
    log = done.stdout + done.stderr
    subprocess.run([engine, "rmi", "-f", f"{image}-edited"], capture_output=True, timeout=120, check=False)
    step = re.search(r"#(\d+) \[build +\d+/\d+\] RUN touch README\.md", log)
    assert step is not None, log[-3000:]
    assert re.search(rf"^#{step.group(1)} CACHED$", log, re.MULTILINE), log[-3000:]
