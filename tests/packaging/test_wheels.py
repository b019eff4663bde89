"""What ``pip install .`` gives: three wheels, no ``examples`` in them, and a server that starts and serves the demo.

The repository holds three distributions: ``graphwire-server`` (the root:
``engine`` and ``server``), ``graphwire`` (``clients/python``) and
``graphwire-proto`` (``proto/python``: the generated stubs both of them
import). The wheels are built here from a copy of the checkout (its tracked
and untracked-but-not-ignored files, as a fresh clone has them), without build
isolation (setuptools comes with the test extra), so nothing is downloaded.

The fresh venv gets those three wheels with ``--no-deps``; the third-party
packages they need are borrowed from the running interpreter's site-packages
through a ``.pth`` line (that directory's own ``.pth`` files, which make this
checkout's editable installs importable, are not processed that way). The
full ``pip install .`` in a fresh venv, downloads included, is the same
install plus the index: README "Layout" says so, and the report of issue 16
timed it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import STOP_DEADLINE, _read_listening_line

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = {"graphwire_server": ".", "graphwire": "clients/python", "graphwire_proto": "proto/python"}


def _checkout_copy(dest: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():  # a file deleted but not yet committed is listed too
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _checkout_copy(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="module")
def wheels(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    for project in DISTRIBUTIONS.values():
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
             "-w", str(out), str(checkout / project)],
            check=True, capture_output=True, timeout=300,
        )
    found = {path.name.split("-")[0]: path for path in out.glob("*.whl")}
    assert sorted(found) == sorted(DISTRIBUTIONS)
    return found


def _top_level(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return {name.split("/")[0] for name in zf.namelist() if not name.split("/")[0].endswith(".dist-info")}


def _requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(zf.read(meta).decode()).get_all("Requires-Dist") or []


def test_each_wheel_holds_its_own_packages_and_no_examples(wheels: dict[str, Path]) -> None:
    assert _top_level(wheels["graphwire_server"]) == {"engine", "server"}
    assert _top_level(wheels["graphwire"]) == {"graphwire"}
    assert _top_level(wheels["graphwire_proto"]) == {"graphwire_proto"}
    with zipfile.ZipFile(wheels["graphwire_proto"]) as zf:
        assert "graphwire_proto/v1/graphwire_pb2_grpc.py" in zf.namelist()
        assert "graphwire_proto/v1/graphwire_pb2.pyi" in zf.namelist()
    with zipfile.ZipFile(wheels["graphwire_server"]) as zf:
        names = zf.namelist()
    assert "server/inspector/static/index.html" in names  # package data still ships
    assert any(n.startswith("engine/checkpoint/") and n.endswith(".sql") for n in names)


def test_the_server_wheel_names_its_siblings_in_this_checkout(wheels: dict[str, Path], checkout: Path) -> None:
    requires = _requires(wheels["graphwire_server"])
    assert f"graphwire-proto@ {(checkout / 'proto/python').as_uri()}" in [r.replace(" @ ", "@ ") for r in requires]
    assert f"graphwire@ {(checkout / 'clients/python').as_uri()}" in [r.replace(" @ ", "@ ") for r in requires]
    assert "graphwire-proto" in _requires(wheels["graphwire"])


def test_an_editable_install_names_the_siblings_plainly(checkout: Path, tmp_path: Path) -> None:
    """So ``pip install -e proto/python -e clients/python -e .`` takes the editable ones."""
    prepare = (
        "import sys; sys.path.insert(0, 'scripts'); import build_backend as b; "
        f"print(b.prepare_metadata_for_build_editable({str(tmp_path)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", prepare], cwd=checkout, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    dist_info = tmp_path / done.stdout.strip().splitlines()[-1]
    requires = Parser().parsestr((dist_info / "METADATA").read_text()).get_all("Requires-Dist")
    assert "graphwire-proto" in requires and "graphwire" in requires
    assert not [r for r in requires if "file:" in r]


@pytest.fixture(scope="module")
def venv(wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
         *map(str, wheels.values())],
        check=True, capture_output=True, timeout=300,
    )
    target = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    borrowed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(target, "_borrowed_dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(borrowed)))
    return venv


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRAPHWIRE_AUTH_TOKEN")}
    return {**env, "PYTHONUNBUFFERED": "1"}


def test_the_installed_packages_come_from_the_wheels(venv: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [str(venv / "bin/python"), "-c",
         "import engine, server, graphwire, graphwire_proto, importlib.util as u; "
         "print(engine.__file__, server.__file__, graphwire.__file__, graphwire_proto.__file__); "
         "print(u.find_spec('examples'))"],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    assert all(path.startswith(str(venv)) for path in where[0].split()), where
    assert where[1] == "None"


@pytest.fixture
def served(venv: Path, checkout: Path, tmp_path: Path) -> Iterator[str]:
    """``graphwire serve`` from the venv, run at the checkout's root with no config."""
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(venv / "bin/graphwire"), "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:"],
            cwd=checkout, env=_env(), stdout=subprocess.PIPE, stderr=log,
        )
    try:
        yield _read_listening_line(proc, log_path)
    finally:
        proc.terminate()
        assert proc.wait(timeout=STOP_DEADLINE) == 0, log_path.read_text()


def test_graphwire_serve_from_a_checkout_serves_the_demo(served: str) -> None:
    from graphwire import Client

    with Client(served) as client:
        assert [g.name for g in client.graphs()] == ["reminders"]
        result = client.invoke("reminders", "t1", {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]})
    assert result.reason == "INTERRUPT"
    assert "call mom" in str(result.interrupts[0].value)


def test_graphwire_serve_elsewhere_says_where_the_demo_is(venv: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin/graphwire"), "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:"],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "examples.reminders" in done.stderr
    assert "run graphwire serve from the repository's root" in done.stderr
