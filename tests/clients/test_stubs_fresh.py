"""The committed stubs are what scripts/gen_protos.py makes from proto/.

If this fails, run ``python scripts/gen_protos.py`` and commit the result.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from tests._needs import missing

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gen_protos.py"
STUBS = Path("proto/python/graphwire_proto")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protos", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


TARGETS = _script().TARGETS
GO_PLUGINS = _script().GO_PLUGINS


def _runnable(target: str) -> bool:
    """Whether this machine has the target's generator (Go's plugins come from Debian packages)."""
    return target != "go" or all(shutil.which(p) for p in GO_PLUGINS)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _generate(out: Path, target: str = "python") -> None:
    subprocess.run(
        [sys.executable, str(SCRIPT), "--target", target, "--out", str(out)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_committed_stubs_equal_fresh_ones(tmp_path: Path, target: str) -> None:
    if not _runnable(target):
        missing(f"the {target} generator is not installed ({', '.join(GO_PLUGINS)}: apt-get install {' '.join(GO_PLUGINS)})")
    _generate(tmp_path, target)
    out_dir = TARGETS[target].out_dir
    fresh, committed = _tree(tmp_path / out_dir), _tree(REPO / out_dir)
    assert fresh, "the generator produced nothing"
    assert sorted(committed) == sorted(fresh), "run: python scripts/gen_protos.py"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"stale stubs {stale}; run: python scripts/gen_protos.py"


def test_generation_is_deterministic(tmp_path: Path) -> None:
    _generate(tmp_path / "a")
    _generate(tmp_path / "b")
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_check_mode_passes_on_the_repo_and_names_stale_files(tmp_path: Path) -> None:
    targets = [f"--target={t}" for t in sorted(TARGETS) if _runnable(t)]  # the Go one is tested above, or skipped
    ok = subprocess.run([sys.executable, str(SCRIPT), "--check", *targets], capture_output=True, text=True, cwd=REPO)
    assert ok.returncode == 0, ok.stderr

    _generate(tmp_path)
    stub = tmp_path / STUBS / "v1/graphwire_pb2.pyi"
    stub.write_bytes(stub.read_bytes() + b"\n# edited by hand\n")
    (tmp_path / STUBS / "leftover.py").write_text("")
    stale = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--out", str(tmp_path)], capture_output=True, text=True, cwd=REPO
    )
    assert stale.returncode == 1
    assert "stale: proto/python/graphwire_proto/v1/graphwire_pb2.pyi" in stale.stderr
    assert "leftover.py" in stale.stderr


def test_stubs_import_from_inside_the_package() -> None:
    grpc_stub = (REPO / STUBS / "v1/graphwire_pb2_grpc.py").read_text()
    assert "from graphwire_proto.v1 import graphwire_pb2" in grpc_stub
    assert not re.search(r"^from graphwire\.v1 ", grpc_stub, re.MULTILINE)

    from graphwire_proto.v1 import graphwire_pb2

    # The proto keeps its canonical file name, the one reflection serves.
    assert graphwire_pb2.DESCRIPTOR.name == "graphwire/v1/graphwire.proto"
    assert graphwire_pb2.RunEvent.__module__ == "graphwire_proto.v1.graphwire_pb2"
    # Imported from graphwire-proto's folder (of whichever checkout the venv installed).
    assert Path(graphwire_pb2.__file__).as_posix().endswith(f"{STUBS.as_posix()}/v1/graphwire_pb2.py")


def test_dependency_floors_are_the_stubs_generator_versions() -> None:
    """The stubs refuse to import on runtimes older than their generator, so
    no package that imports them may promise to work with those."""
    grpc_stub = (REPO / STUBS / "v1/graphwire_pb2_grpc.py").read_text()
    grpc_version = re.search(r"GRPC_GENERATED_VERSION = '([\d.]+)'", grpc_stub).group(1)
    pb2 = (REPO / STUBS / "v1/graphwire_pb2.py").read_text()
    major, minor, patch = re.search(r"Domain\.PUBLIC,\s*(\d+),\s*(\d+),\s*(\d+),", pb2).groups()
    expected = {"grpcio": grpc_version, "protobuf": f"{major}.{minor}.{patch}"}

    def floors(requirements: list[str]) -> dict[str, str]:
        found = (re.match(r"([\w-]+)>=([\d.]+)", r) for r in requirements)
        return {m.group(1): m.group(2) for m in found if m and m.group(1) in expected}

    stubs = tomllib.loads((REPO / "proto/python/pyproject.toml").read_text())["project"]["dependencies"]
    client = tomllib.loads((REPO / "clients/python/pyproject.toml").read_text())["project"]["dependencies"]
    server = re.findall(r'"((?:grpcio|protobuf)>=[^"]+)"', (REPO / "setup.py").read_text())
    assert floors(stubs) == expected
    assert floors(client) == expected
    assert floors(server) == expected


def test_a_missing_plugin_is_said_in_one_line(tmp_path: Path) -> None:
    bare = tmp_path / "bin"  # a PATH with this Python and nothing else: no protoc plugins, no node
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    for target, needs in (("go", "protoc-gen-go"), ("typescript", "Node.js")):
        done = subprocess.run(
            [str(bare / "python"), str(SCRIPT), "--target", target, "--out", str(tmp_path / "out")],
            capture_output=True, text=True, cwd=REPO, env={"PATH": str(bare)},
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and needs in done.stderr and "Traceback" not in done.stderr
