"""PostgreSQL for every part with tables: migrations, connections, LangGraph's handed-over connections, parts beside the saver."""
