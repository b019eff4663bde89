"""Graph specs that go wrong say what went wrong, in words (no traceback)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from server._specs import SpecError, resolve_spec


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """sys.path and sys.modules as they were, after the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))


def test_a_syntax_error_names_the_file_and_line(tmp_path: Path, isolated: None) -> None:
    (tmp_path / "broken_graph.py").write_text("graph = (\n")
    with pytest.raises(SpecError, match=r"graph 'g': .*broken_graph.py has a syntax error at line 1"):
        resolve_spec("./broken_graph.py:graph", name="g", base_dir=str(tmp_path))


def test_an_error_while_importing_names_it(tmp_path: Path, isolated: None) -> None:
    (tmp_path / "raising_graph.py").write_text("raise RuntimeError('needs OPENAI_API_KEY')\n")
    with pytest.raises(SpecError, match=r"importing .*raising_graph.py raised RuntimeError: needs OPENAI_API_KEY"):
        resolve_spec("raising_graph:graph", name="g", base_dir=str(tmp_path))


def test_a_file_needs_a_python_name_and_a_free_one(tmp_path: Path, isolated: None) -> None:
    (tmp_path / "my-graph.py").write_text("graph = 1\n")
    with pytest.raises(SpecError, match="rename it to a Python name"):
        resolve_spec("./my-graph.py:graph", name="g", base_dir=str(tmp_path))
    (tmp_path / "json.py").write_text("graph = 1\n")
    with pytest.raises(SpecError, match="that name is already the module"):
        resolve_spec("./json.py:graph", name="g", base_dir=str(tmp_path))


def test_the_spec_shape_is_explained() -> None:
    with pytest.raises(SpecError, match=r"must look like 'package.module:attribute' or './file.py:attribute'"):
        resolve_spec("mygraph", name="g")


def test_dotted_attributes_and_a_module_imported_twice(tmp_path: Path, isolated: None) -> None:
    (tmp_path / "holder_graph.py").write_text("class Holder:\n    graph = 42\n")
    assert resolve_spec("./holder_graph.py:Holder.graph", base_dir=str(tmp_path)) == 42
    assert resolve_spec("holder_graph:Holder.graph", base_dir=str(tmp_path)) == 42  # the same module, not a second copy
