"""engine.swap: ``import langgraph.X`` served by ``engine.X``, in a fresh interpreter each."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_langgraph_imports_get_the_engines_modules_and_classes() -> None:
    done = _run(
        """
        import engine.swap
        engine.swap.install()
        engine.swap.install()  # once is enough; again changes nothing
        import langgraph.graph, engine.graph
        from langgraph.graph import StateGraph
        from langgraph.types import Command
        import engine.types
        assert langgraph.graph is engine.graph
        assert StateGraph is engine.graph.StateGraph and Command is engine.types.Command
        assert langgraph.graph.__spec__.name == "engine.graph"
        print("ok")
        """
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_a_name_the_engine_lacks_is_named_in_langgraphs_terms() -> None:
    done = _run(
        """
        import engine.swap
        engine.swap.install()
        try:
            import langgraph.no_such_module
        except ModuleNotFoundError as e:
            print(e)
        try:
            from langgraph.graph import NoSuchName
        except ImportError as e:
            print(engine.swap.explain(e))
        """
    )
    first, second = done.stdout.strip().splitlines()
    assert "'langgraph.no_such_module'" in first and "'engine.no_such_module'" in first
    assert "imports 'NoSuchName' from 'langgraph.graph'" in second and "__main__" in second


def test_install_refuses_once_real_langgraph_modules_are_loaded() -> None:
    done = _run(
        """
        import sys, types
        sys.modules["langgraph.checkpoint.base"] = types.ModuleType("langgraph.checkpoint.base")
        import engine.swap
        try:
            engine.swap.install()
        except RuntimeError as e:
            print(e)
        print(engine.swap.installed())
        """
    )
    message, installed = done.stdout.strip().splitlines()
    assert "'langgraph.checkpoint.base' already is" in message
    assert installed == "False"


def test_uninstall_forgets_the_served_names() -> None:
    done = _run(
        """
        import sys
        import engine.swap
        engine.swap.install()
        import langgraph.graph
        engine.swap.uninstall()
        print(engine.swap.installed(), "langgraph.graph" in sys.modules, "engine.graph" in sys.modules)
        """
    )
    assert done.stdout.strip() == "False False True", done.stderr


def test_another_distributions_package_in_langgraphs_namespaces_is_its_own_on_the_engines_base(tmp_path) -> None:
    # A saver package of another distribution (langgraph-checkpoint-redis, -mongodb...), laid out as pip does.
    pkg = tmp_path / "langgraph" / "checkpoint" / "fancy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from langgraph.checkpoint.base import BaseCheckpointSaver\n"
        "from langgraph.checkpoint.fancy.aio import AsyncFancy\n"
        "class FancySaver(BaseCheckpointSaver):\n    pass\n"
    )
    (pkg / "aio.py").write_text("from langgraph.checkpoint.memory import InMemorySaver\nclass AsyncFancy(InMemorySaver):\n    pass\n")
    done = _run(
        f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import engine.swap, engine.checkpoint
        engine.swap.install()
        from langgraph.checkpoint.fancy import FancySaver, AsyncFancy
        import langgraph.checkpoint.fancy.aio as aio
        assert issubclass(FancySaver, engine.checkpoint.BaseCheckpointSaver) and issubclass(AsyncFancy, engine.checkpoint.InMemorySaver)
        assert aio.__file__.startswith({str(tmp_path)!r}) and FancySaver.__module__ == "langgraph.checkpoint.fancy"
        for missing in ("langgraph.checkpoint.nowhere", "langgraph.graph.fancy"):
            try:
                __import__(missing)
            except ModuleNotFoundError as e:
                assert "graphwire's engine" in str(e), e
        engine.swap.uninstall()
        assert "langgraph.checkpoint.fancy" not in sys.modules
        engine.swap.install()  # the distribution's modules went with the swap: nothing of real LangGraph is loaded
        import langgraph.checkpoint.fancy
        print("ok")
        """
    )
    assert done.stdout.strip() == "ok", done.stderr
