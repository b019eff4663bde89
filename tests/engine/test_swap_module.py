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
