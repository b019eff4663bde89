"""Running a test as on an installation without langchain-core (the optional ``langchain`` extra).

With ``GRAPHWIRE_TEST_HIDE_LANGCHAIN=1`` in the environment, ``tests/conftest.py``
calls :func:`hide` before anything is imported, so every ``langchain_core``
import fails as if it were not installed. :func:`rerun_without_langchain`
runs one test that way in a fresh pytest process.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ENV = "GRAPHWIRE_TEST_HIDE_LANGCHAIN"
ROOT = Path(__file__).resolve().parent.parent


class _Hide:
    """A meta-path finder that refuses langchain_core and its submodules."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "langchain_core" or name.startswith("langchain_core."):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden by {ENV})", name=name)
        return None


def hide() -> None:
    if not any(isinstance(f, _Hide) for f in sys.meta_path):
        sys.meta_path.insert(0, _Hide())


def hidden() -> bool:
    return os.environ.get(ENV) == "1"


def langchain_installed() -> bool:
    return not hidden() and importlib.util.find_spec("langchain_core") is not None


def rerun_without_langchain(nodeid: str) -> None:
    """Run the test ``nodeid`` in a pytest process without langchain-core; fail if it fails."""
    env = dict(os.environ, **{ENV: "1"})
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", nodeid],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert out.returncode == 0, f"{nodeid} without langchain-core:\n{out.stdout[-4000:]}\n{out.stderr[-2000:]}"
