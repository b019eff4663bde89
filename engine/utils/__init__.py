"""LangGraph's legacy ``langgraph.utils`` package, which LangGraph 1.2 still ships as import shims.

Packages written for LangGraph 0.x import from it (langmem and trustcall:
``langgraph.utils.config.get_store``, ``langgraph.utils.runnable.RunnableCallable``);
the names are the engine's own, at their current homes.
"""
