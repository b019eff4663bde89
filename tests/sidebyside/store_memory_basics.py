"""InMemoryStore: put/get/search/delete/list_namespaces, batches, filters and bad namespaces."""

from observe import call, record

from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore


def view(items):
    return [(i.namespace, i.key, i.value, getattr(i, "score", None)) for i in items]


store = InMemoryStore()
store.put(("memories", "u1"), "m1", {"text": "likes tea", "n": 1})
store.put(("memories", "u2"), "m1", {"text": "likes coffee", "n": 2})
store.put(("memories", "u1"), "m2", {"text": "lives in Oslo", "n": 3, "meta": {"lang": "en"}})
store.put(("memories", "u1"), "m1", {"text": "likes green tea", "n": 4})
store.put(("prefs",), 7, {"theme": "dark"})

record("get", store.get(("memories", "u1"), "m1").value)
record("get missing", store.get(("memories", "u1"), "nope"))
record("get int key", store.get(("prefs",), "7").key)
record("search ns", view(store.search(("memories", "u1"))))
record("search prefix", view(store.search(("memories",))))
record("search all", view(store.search(())))
record("search filter", view(store.search(("memories",), filter={"n": {"$gte": 2}})))
record("search nested filter", view(store.search(("memories",), filter={"meta": {"lang": "en"}})))
record("search limit offset", view(store.search(("memories",), limit=1, offset=1)))
record("search query without index", view(store.search(("memories",), query="tea")))
record("list", store.list_namespaces())
record("list prefix depth", store.list_namespaces(prefix=("memories",), max_depth=1))
record("list suffix", store.list_namespaces(suffix=("u2",)))
record("list wildcard", store.list_namespaces(prefix=("*", "u1")))
record("batch", [
    r.value if hasattr(r, "value") else view(r) if isinstance(r, list) and r and hasattr(r[0], "key") else r
    for r in store.batch([
        PutOp(("memories", "u1"), "m1", {"text": "batched"}),
        GetOp(("memories", "u1"), "m1"),
        SearchOp(("memories", "u2")),
        ListNamespacesOp(max_depth=1),
    ])
])
record("get after batch", store.get(("memories", "u1"), "m1").value)
store.delete(("memories", "u2"), "m1")
record("after delete", view(store.search(("memories",))))
record("repr", repr(store.get(("prefs",), "7")).split(", created_at")[0])
for bad in [(), ("a.b",), ("",), ("langgraph", "x"), (1,)]:
    call(f"put {bad!r}", store.put, bad, "k", {"v": 1})
call("search a.b", store.search, ("a.b",))
