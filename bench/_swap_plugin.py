"""A pytest plugin (``-p _swap_plugin``) that serves every ``langgraph`` import with the engine.

bench/langgraph_suite.py loads it before LangGraph's test suite collects
anything, so the suite's conftest and tests import ``engine`` wherever they
name ``langgraph`` (engine/swap.py).
"""

import engine.swap

engine.swap.install()
