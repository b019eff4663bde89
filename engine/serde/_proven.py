"""Registered pydantic values rebuilt without validating the same bytes again.

Reading a thread decodes every message it holds, at every run's start: a
chat of 150 turns is 600 LangChain messages, and LangChain's own pydantic
validation of each (~3 µs of the ~5 µs a message's decode takes) made the
start's read most of the SQLite writer thread's CPU in a long thread's runs
(bench/README.md, long_thread.py). The same stored bytes are read run after
run, and a validation is a function of its input: bytes that validated once
validate again to the same object.

So a serializer remembers the ext payloads (a message's own bytes) whose
validation gave back exactly their own fields (:func:`proves`): the same
fields in the same order with values of the same types, defaults for the
rest, the same fields-set and extra fields, nothing private. The next decode
of those bytes builds the object directly from its freshly decoded fields
(:class:`Rebuilder`): what validation would have made, without running it
again. Bytes that fail validation are never remembered (a hostile row still
fails as corrupt, at every read), and bytes a validator changes (LangChain
fills in what an older form left out) are validated at every read, as
before. Only classes :func:`rebuilder_of` can rebuild take this path:
pydantic models without aliases, private attributes, ``model_post_init`` or
mutable defaults other than factories; and not under a serializer with a
codec (a cipher's): its payloads' plain text is not kept past the read.

Each remembered payload maps to its class's rebuilder, so a decode of those
bytes goes straight to it (``Serializer._ext_hook``), with no look-up of
the class by name. Bounded: the remembered payloads' bytes are at most
:data:`MAX_BYTES` with ~64 bytes each for the map's own keeping (past that
the map is emptied and fills again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["MAX_BYTES", "Proven", "Rebuilder", "proves", "rebuilder_of"]

#: what a serializer's remembered payloads may take: their bytes and :data:`_ENTRY` each
MAX_BYTES = 8 << 20
_ENTRY = 64  # a map slot and a bytes object's header
_SCALARS = frozenset({str, int, float, bool, type(None), bytes})
_MISSING: Any = object()
_new = object.__new__
#: the slots a pydantic model's instance keeps, set here through their own descriptors (a third
#: quicker than ``object.__setattr__``, which looks each name up first)
_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


class Rebuilder:
    """Makes an instance of one pydantic class from its stored fields as validation leaves them:
    given fields as they are, defaults for the others (a factory's fresh value), extra keys as
    extra fields. Returns None for data it cannot place (an extra key the class does not allow).

    A class's stored payloads come in few shapes (the keys a message was stored with, in their
    order: its required fields and those not at their defaults), so each shape's work is planned
    once (:meth:`_plan`): the fields' dict in the class's order with the defaults in place, and
    the factories to call for the fields the shape leaves out. A rebuild is then a copy of that
    dict, an update from the data and the four slots pydantic keeps set through their
    descriptors (~0.9 µs a LangChain message, from ~1.3 field by field).
    """

    __slots__ = ("_cls", "_fields", "_names", "_extra", "_plans", "_setters")

    def __init__(
        self, cls: type, fields: list[tuple[str, Any, Callable[[], Any] | None]], extra_allowed: bool,
        setters: tuple[Callable[[Any, Any], None], ...],
    ) -> None:  # fmt: skip
        self._cls = cls
        self._setters = setters  # the __set__ of each of _SLOTS' descriptors
        self._fields = fields
        self._names = frozenset(name for name, _, _ in fields)
        self._extra = extra_allowed
        #: a shape (the data's keys, in order) -> its plan, or None: keys beyond the fields
        self._plans: dict[tuple[str, ...], _Plan | None] = {}

    def __call__(self, data: dict[str, Any]) -> Any:
        shape = tuple(data)
        plan = self._plans.get(shape, _MISSING)
        if plan is _MISSING:
            plan = self._plan(shape)
            if len(self._plans) < _MAX_SHAPES:
                self._plans[shape] = plan
        if plan is not None:
            template, factories = plan
            values = template.copy()
            values.update(data)  # every key is a field's: each takes its place in the class's order
            for name, factory in factories:
                values[name] = factory()
            extra: dict[str, Any] | None = {} if self._extra else None
        elif self._extra:
            values, extra = self._with_extra(data)
        else:
            return None  # a key the class does not allow
        set_dict, set_fields_set, set_extra, set_private = self._setters
        obj: Any = _new(self._cls)
        set_dict(obj, values)
        set_fields_set(obj, set(data))
        set_extra(obj, extra)
        set_private(obj, None)
        return obj

    def _plan(self, shape: tuple[str, ...]) -> _Plan | None:
        """The field values' template and the factories to call for data of keys ``shape``; None
        when a key is not a field's (an extra field, or one the class refuses)."""
        if not self._names.issuperset(shape):
            return None
        template: dict[str, Any] = {}
        factories: list[tuple[str, Callable[[], Any]]] = []
        for name, default, factory in self._fields:
            template[name] = default if factory is None or name in shape else None
            if factory is not None and name not in shape:
                factories.append((name, factory))
        return template, tuple(factories)

    def _with_extra(self, data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The fields' values and the extra fields of data holding keys that are no field's."""
        values: dict[str, Any] = {}
        for name, default, factory in self._fields:
            value = data.get(name, _MISSING)
            values[name] = value if value is not _MISSING else default if factory is None else factory()
        return values, {k: v for k, v in data.items() if k not in self._names}


#: a shape's plan: the fields' dict with the defaults in place, and (field, factory) for the fields it leaves out
_Plan = tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...]]
_MAX_SHAPES = 64  # per class; past that a shape is planned at every rebuild


def rebuilder_of(cls: Any) -> Rebuilder | None:
    """How to rebuild ``cls`` without validation, or None when it cannot be done exactly."""
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - a pydantic class implies pydantic
        return None
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        return None
    if cls.__private_attributes__ or cls.model_post_init is not BaseModel.model_post_init:
        return None
    fields: list[tuple[str, Any, Callable[[], Any] | None]] = []
    for name, info in cls.model_fields.items():
        if info.alias not in (None, name) or info.validation_alias is not None:
            return None
        factory = info.default_factory
        if factory is not None:
            if getattr(info, "default_factory_takes_data", False):
                return None
            fields.append((name, None, factory))  # type: ignore[arg-type]  # (one taking data was refused above)
        elif type(info.default) in _SCALARS or info.is_required():
            fields.append((name, None if info.is_required() else info.default, None))
        else:  # a mutable default pydantic copies for each instance
            return None
    setters = []
    for slot in _SLOTS:  # pydantic's BaseModel declares them; a layout without them is not rebuilt
        owner = next((k for k in cls.__mro__ if slot in vars(k)), None)
        setter = getattr(vars(owner)[slot], "__set__", None) if owner is not None else None
        if setter is None:
            return None
        setters.append(setter)
    return Rebuilder(cls, fields, cls.model_config.get("extra") == "allow", tuple(setters))


def _same(a: Any, b: Any) -> bool:
    """``a`` and ``b`` equal as values of exactly the same types, all the way down (dicts in the same order)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return len(a) == len(b) and all(ka == kb and type(ka) is type(kb) and _same(va, b[kb]) for (ka, va), kb in zip(a.items(), b))
    if kind is list:
        return len(a) == len(b) and all(map(_same, a, b))
    if kind in _SCALARS:
        return bool(a == b)
    return False  # anything else (a nested model, a tuple...) is not proven


def proves(validated: Any, rebuilt: Any) -> bool:
    """Whether ``rebuilt`` (:class:`Rebuilder`'s object from freshly decoded fields) is exactly the object
    validation made from the same bytes."""
    if rebuilt is None or type(rebuilt) is not type(validated) or validated.__pydantic_private__ is not None:
        return False
    try:
        return (
            validated.__pydantic_fields_set__ == rebuilt.__pydantic_fields_set__
            and _same(validated.__dict__, rebuilt.__dict__)
            and _same(validated.__pydantic_extra__, rebuilt.__pydantic_extra__)
        )
    except RecursionError:
        return False


class Proven:
    """The payloads whose validation a :func:`proves` check showed to be their own fields (see the module)."""

    __slots__ = ("_payloads", "_bytes", "_max")

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self._payloads: dict[bytes, Rebuilder] = {}
        self._bytes = 0
        self._max = max_bytes

    def __contains__(self, payload: bytes) -> bool:
        return payload in self._payloads

    def get(self, payload: bytes) -> Rebuilder | None:
        """The rebuilder of ``payload``'s class, when those bytes were proven; else None."""
        return self._payloads.get(payload)

    def add(self, payload: bytes, rebuild: Rebuilder) -> None:
        size = len(payload) + _ENTRY
        if self._bytes + size > self._max:  # emptied, not trimmed: a map kept whole is cheaper than an order
            self._payloads = {}
            self._bytes = 0
        self._payloads[payload] = rebuild
        self._bytes += size
