"""LangGraph's legacy ``langgraph.utils`` shims, which packages written for LangGraph 0.x still import.

langmem 0.0.30 and trustcall 0.0.39 import ``langgraph.utils.config``'s
``get_store``, ``get_config`` and ``ensure_config`` and ``langgraph.utils.runnable``'s
``RunnableCallable``: under the import swap they failed to import
(tests/sidebyside/langmem_tools.py runs langmem's memory tools on both). The
names are the engine's own.
"""

from __future__ import annotations

import engine.config
from engine._internal import _config, _runnable
from engine._internal._constants import CONFIG_KEY_RUNTIME


def test_the_legacy_utils_modules_name_the_engines_own() -> None:
    from engine.utils import config, runnable

    assert config.get_store is engine.config.get_store and config.get_config is engine.config.get_config
    assert config.ensure_config is _config.ensure_config and config.patch_configurable is _config.patch_configurable
    assert runnable.RunnableCallable is _runnable.RunnableCallable and runnable.RunnableLike is _runnable.RunnableLike


def test_the_runtime_key_is_langgraphs() -> None:
    assert CONFIG_KEY_RUNTIME == "__pregel_runtime"
