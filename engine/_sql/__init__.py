"""The SQL plumbing every part with tables shares: checkpoints and runs, the store, the node cache.

* :mod:`engine._sql.files`: a part's numbered migration files and fresh schema,
  read from its package;
* :mod:`engine._sql.sqlite`: opening a SQLite file the one way every part does
  and the one migration runner for it (the checkpointer's version is the
  file's ``user_version``; a part beside it keeps its own bookkeeping table);
* :mod:`engine._sql.postgres`: the PostgreSQL twin: the migration runner
  (``migrate``), the connections a part runs its statements on (``conns``),
  LangGraph's ways of handing over a connection or pool (``given``), and what
  a part beside the saver shares (``part``: the store's and the cache's
  set-up, connections and errors).

The parts themselves (``engine.checkpoint.sqlite``, ``engine.store.postgres``,
...) keep only what is theirs: their tables, queries and rows.
"""
