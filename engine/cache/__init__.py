"""Node caches (``compile(cache=...)`` with ``add_node(cache_policy=CachePolicy(...))``), at LangGraph's paths."""
