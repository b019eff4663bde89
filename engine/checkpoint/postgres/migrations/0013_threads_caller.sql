-- 0013: a thread found by the id its caller knows it by (LangGraph's HTTP API names a thread by its id
-- alone, and finds its graph before each run: server/http/_common.py graph_of). Without this index that
-- lookup read every thread of the tenant.
CREATE INDEX threads_caller ON threads (tenant, caller_thread);
