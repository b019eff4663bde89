"""What every store decides the same way: pure functions over plain data.

Each store (memory, SQLite, PostgreSQL) only fetches and writes rows; how a
batch is checked and ordered, which items a filter keeps, how a query ranks
them, how namespaces are listed and paged, which texts a put embeds, and
when an item expires are decided here, once, so the three stores agree by
construction (and the spec suite in ``tests/store`` checks that they do).

Batch semantics (LangGraph's ``InMemoryStore``): every read of a batch sees
the store as it was before the batch; the batch's puts are applied after
them, in order of each ``(namespace, key)``'s first put, the last put of a
key winning. Search order without a query: namespaces in the order their
oldest item was written, then items in the order they were first written
(a later put keeps an item's place; a delete and a new put move it last).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engine.store.base._paths import get_text_at_path, tokenize_path
from engine.store.base._types import (
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

__all__ = [
    "MAX_TTL_MINUTES",
    "Batch",
    "check_ops",
    "Fields",
    "NamespacePage",
    "cosine",
    "distinct",
    "embed",
    "expires_at",
    "filter_matches",
    "index_fields",
    "literal_prefix",
    "namespace_matches",
    "plan",
    "rank",
    "search_item",
    "texts_to_embed",
    "under",
]

#: The longest TTL (about 1,900 years). An expiry is a datetime, which ends at year 9999: a longer TTL
#: (1e308, say) cannot be one, so it is refused as a bad argument rather than overflowing inside the store.
MAX_TTL_MINUTES = 1e9

_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})

#: ``(path, tokens)`` of each field an index embeds (``"$"``: the whole value).
Fields = list[tuple[str, "list[str] | str"]]


@dataclass(slots=True)
class Batch:
    """A checked batch: reads in op order, and the puts to apply after them."""

    size: int
    gets: list[tuple[int, GetOp]] = field(default_factory=list)
    searches: list[tuple[int, SearchOp]] = field(default_factory=list)
    lists: list[tuple[int, ListNamespacesOp]] = field(default_factory=list)
    puts: dict[tuple[tuple[str, ...], str], PutOp] = field(default_factory=dict)

    def results(self) -> list[Result]:
        return [None] * self.size


def _count(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be an integer >= 0, got {value!r}")


def _check_filter(filter: Mapping[str, Any], where: str = "filter") -> None:
    for key, want in filter.items():
        if not isinstance(key, str):
            raise ValueError(f"{where} keys must be strings, got {key!r}")
        if isinstance(want, Mapping):
            ops = [k for k in want if isinstance(k, str) and k.startswith("$")]
            for k in ops:
                if k not in _OPERATORS:
                    raise ValueError(f"Unsupported operator: {k} (in {where}[{key!r}]; use one of {sorted(_OPERATORS)})")
            if not ops:
                _check_filter(want, f"{where}[{key!r}]")


def _check_put(op: PutOp) -> None:
    if not isinstance(op.key, str):
        raise TypeError(f"an item's key must be a str, got {type(op.key).__name__}")
    if op.value is not None and not isinstance(op.value, Mapping):
        raise TypeError(f"an item's value must be a dict (or None to delete it), got {type(op.value).__name__}")
    if op.index is not None and op.index is not False:
        if isinstance(op.index, str) or not all(isinstance(p, str) for p in op.index):
            raise TypeError(f"index must be False, None or a list of field paths, got {op.index!r}")
    if op.ttl is not None:
        if isinstance(op.ttl, bool) or not isinstance(op.ttl, (int, float)) or not math.isfinite(op.ttl):
            raise ValueError(f"ttl is a number of minutes > 0 (or None: never expire), got {op.ttl!r}")
        if not 0 < op.ttl <= MAX_TTL_MINUTES:
            raise ValueError(
                f"ttl is a number of minutes > 0 and at most {MAX_TTL_MINUTES:,.0f} (about 1,900 years; "
                f"None: never expire), got {op.ttl!r}"
            )


def plan(ops: Iterable[Op], *, check_namespaces: bool = True) -> Batch:
    """Check every op (nothing runs if one is bad) and group them.

    ``check_namespaces=False`` leaves the labels unchecked: for ops a
    :class:`~engine.store.ScopedStore` built from a caller's ops it checked
    itself, whose first label is a scope's root (which holds a ``.`` on
    purpose, so that no caller's label can be it).

    Raises:
        InvalidNamespaceError: a label is empty, not a string, or holds ``.`` or NUL;
            a put's namespace is empty or starts with ``"langgraph"``.
        ValueError / TypeError: a bad limit, offset, depth, filter, key, value, index or ttl,
            or an object that is not an op.
    """
    batch = Batch(size=0)
    for i, op in enumerate(ops):
        batch.size = i + 1
        if not isinstance(op, (GetOp, SearchOp, PutOp, ListNamespacesOp)):
            raise ValueError(f"Unknown operation type: {type(op)}")
        if check_namespaces:
            validate_op_namespace(op)
        if isinstance(op, GetOp):
            if not isinstance(op.key, str):
                raise TypeError(f"an item's key must be a str, got {type(op.key).__name__}")
            batch.gets.append((i, op))
        elif isinstance(op, SearchOp):
            _count(op.limit, "limit")
            _count(op.offset, "offset")
            if op.filter is not None:
                if not isinstance(op.filter, Mapping):
                    raise TypeError(f"filter must be a dict, got {type(op.filter).__name__}")
                _check_filter(op.filter)
            if op.query is not None and not isinstance(op.query, str):
                raise TypeError(f"query must be a str, got {type(op.query).__name__}")
            batch.searches.append((i, op))
        elif isinstance(op, ListNamespacesOp):
            _count(op.limit, "limit")
            _count(op.offset, "offset")
            if op.max_depth is not None:
                _count(op.max_depth, "max_depth")
            for condition in op.match_conditions or ():
                if not isinstance(condition, MatchCondition) or condition.match_type not in ("prefix", "suffix"):
                    raise ValueError(f"match conditions are MatchCondition('prefix' | 'suffix', path), got {condition!r}")
            batch.lists.append((i, op))
        else:
            _check_put(op)
            batch.puts[(op.namespace, op.key)] = op
    return batch


def check_ops(ops: Iterable[Op]) -> None:
    """Raise what a store's ``abatch`` would raise for ``ops`` when checking them, running nothing."""
    plan(ops)


# -- filters ------------------------------------------------------------------
def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _operator(have: Any, op: str, want: Any) -> bool:
    if op == "$eq":
        return bool(have == want)
    if op == "$ne":
        return bool(have != want)
    a, b = _number(have), _number(want)
    if a is None or b is None:
        return False  # no order between these: the item does not match
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _value_matches(have: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in want):
            return all(_operator(have, k, v) for k, v in want.items())
        return isinstance(have, Mapping) and all(_value_matches(have.get(k), v) for k, v in want.items())
    if isinstance(want, (list, tuple)):
        return (
            isinstance(have, (list, tuple))
            and len(have) == len(want)
            and all(_value_matches(h, w) for h, w in zip(have, want))
        )
    return bool(have == want)


def filter_matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a search filter (a missing key is None)."""
    return not filter or all(_value_matches(value.get(k), w) for k, w in filter.items())


# -- namespaces ---------------------------------------------------------------
def under(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    """Whether ``namespace`` is ``prefix`` or lies below it (whole labels, compared exactly)."""
    return namespace[: len(prefix)] == prefix


def _lines_up(labels: Iterable[str], path: Iterable[str]) -> bool:
    return all(p == "*" or p == label for label, p in zip(labels, path))


def namespace_matches(namespace: tuple[str, ...], conditions: Sequence[MatchCondition] | None) -> bool:
    """Whether ``namespace`` meets every condition (``"*"`` matches any one label)."""
    for match_type, path in conditions or ():
        if len(namespace) < len(path):
            return False
        if match_type == "prefix" and not _lines_up(namespace, path):
            return False
        if match_type == "suffix" and not _lines_up(reversed(namespace), reversed(path)):
            return False
    return True


def literal_prefix(conditions: Sequence[MatchCondition] | None) -> tuple[str, ...]:
    """The labels every listed namespace must start with (a prefix condition's, up to its first ``"*"``)."""
    best: tuple[str, ...] = ()
    for match_type, path in conditions or ():
        if match_type == "prefix":
            literal: list[str] = []
            for label in path:
                if label == "*":
                    break
                literal.append(label)
            if len(literal) > len(best):
                best = tuple(literal)
    return best


class NamespacePage:
    """One page of a :class:`ListNamespacesOp`'s answer, fed the store's namespaces in sorted order.

    ``feed`` takes the distinct namespaces that hold items, ascending (tuple
    order), and says whether it wants more: each is truncated to
    ``max_depth`` labels, equal truncations count once, and reading stops as
    soon as the page is full.
    """

    __slots__ = ("op", "out", "_last", "_skip")

    def __init__(self, op: ListNamespacesOp) -> None:
        self.op = op
        self.out: list[tuple[str, ...]] = []
        self._last: tuple[str, ...] | None = None
        self._skip = op.offset

    def feed(self, namespace: tuple[str, ...]) -> bool:
        op = self.op
        if len(self.out) >= op.limit:
            return False
        if not namespace_matches(namespace, op.match_conditions):
            return True
        shown = namespace if op.max_depth is None else namespace[: op.max_depth]
        if shown == self._last:
            return True  # sorted input: equal truncations are adjacent
        self._last = shown
        if self._skip:
            self._skip -= 1
        else:
            self.out.append(shown)
        return len(self.out) < op.limit


# -- semantic search ----------------------------------------------------------
def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity (0.0 when either vector is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def rank(
    candidates: Sequence[tuple[Item, Sequence[Sequence[float]]]], query: Sequence[float], op: SearchOp
) -> list[SearchItem]:
    """One page of ``candidates`` (store order, with their vectors) ranked by similarity to ``query``.

    An item scores as its best-matching vector (max pooling); ties keep
    store order. Items without a vector follow the scored ones, score None.
    """
    scored = sorted(
        ((max(cosine(query, v) for v in vectors), i) for i, (_, vectors) in enumerate(candidates) if vectors),
        key=lambda s: -s[0],
    )
    ranked: list[tuple[float | None, Item]] = [(score, candidates[i][0]) for score, i in scored]
    ranked += [(None, item) for item, vectors in candidates if not vectors]
    return [search_item(item, score) for score, item in ranked[op.offset : op.offset + op.limit]]


def search_item(item: Item, score: float | None = None) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)


def index_fields(fields: Sequence[str] | None) -> Fields:
    """The tokenized fields of an index config (default: the whole value)."""
    return [(p, p if p == "$" else tokenize_path(p)) for p in (fields or ["$"])]


def texts_to_embed(puts: Iterable[PutOp], fields: Fields) -> list[tuple[tuple[str, ...], str, str, str]]:
    """``(namespace, key, field name, text)`` of every text ``puts`` embed.

    A path that picks several texts names them ``path.0``, ``path.1``…
    """
    out: list[tuple[tuple[str, ...], str, str, str]] = []
    for op in puts:
        if op.value is None or op.index is False:
            continue
        paths = fields if op.index is None else index_fields(op.index)
        for path, tokens in paths:
            texts = get_text_at_path(op.value, tokens)
            for i, text in enumerate(texts):
                out.append((op.namespace, op.key, f"{path}.{i}" if len(texts) > 1 else path, text))
    return out


def distinct(texts: Iterable[str]) -> list[str]:
    """Each text once, in first-seen order (what is sent to the embedding function)."""
    return list(dict.fromkeys(texts))


async def embed(
    embeddings: Any, batch: Batch, fields: Fields
) -> tuple[dict[str, list[float]], dict[tuple[tuple[str, ...], str], dict[str, list[float]]]]:
    """The vectors a batch needs, computed before anything changes: by query text, and each put's by field.

    Each distinct query is embedded once (``aembed_query``), and the puts'
    distinct texts in one ``aembed_documents`` call, as LangGraph's store does.
    """
    if embeddings is None:
        return {}, {}
    queries = distinct(op.query for _, op in batch.searches if op.query)
    qvecs = await asyncio.gather(*(embeddings.aembed_query(q) for q in queries))
    wanted = texts_to_embed(batch.puts.values(), fields)
    texts = distinct(text for *_, text in wanted)
    vectors = await embeddings.aembed_documents(texts) if texts else []
    if len(vectors) != len(texts):
        raise ValueError(f"the embedding function returned {len(vectors)} vectors for {len(texts)} texts")
    by_text = dict(zip(texts, vectors))
    per_item: dict[tuple[tuple[str, ...], str], dict[str, list[float]]] = {}
    for ns, key, name, text in wanted:
        per_item.setdefault((ns, key), {})[name] = [float(x) for x in by_text[text]]
    return {q: [float(x) for x in v] for q, v in zip(queries, qvecs)}, per_item


# -- TTL ----------------------------------------------------------------------
def expires_at(now: datetime, ttl: float | None) -> datetime | None:
    """When an item written (or refreshed) at ``now`` with ``ttl`` minutes expires."""
    return None if ttl is None else now + timedelta(minutes=ttl)
