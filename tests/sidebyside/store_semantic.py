"""InMemoryStore with an embedding function: ranking, scores, fields, index=False, calls made."""

from observe import record

from langgraph.store.memory import InMemoryStore

calls = []


def embed(texts):
    calls.append(list(texts))
    return [[float(t.count("a")), float(t.count("b")), float(t.count("c")) + 0.5] for t in texts]


store = InMemoryStore(index={"embed": embed, "dims": 3, "fields": ["text"]})
store.put(("docs",), "a", {"text": "aaa"})
store.put(("docs",), "b", {"text": "bbb"})
store.put(("docs",), "ab", {"text": "abab"})
store.put(("docs",), "c", {"text": "ccc", "title": "ab"}, index=["title"])
store.put(("docs",), "off", {"text": "aaa"}, index=False)
record("calls after puts", calls)
for q in ["a", "b", "abc"]:
    record(f"query {q}", [(i.key, round(i.score, 6) if i.score is not None else None) for i in store.search(("docs",), query=q)])
record("query limit", [i.key for i in store.search(("docs",), query="a", limit=2)])
record("query filter", [i.key for i in store.search(("docs",), query="b", filter={"text": "aaa"})])
record("calls", calls)

whole = InMemoryStore(index={"embed": embed, "dims": 3})
whole.put(("d",), "k", {"z": "bb", "a": 1})
record("whole value text", calls[-1])
