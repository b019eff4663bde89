"""The serializer: msgpack with an allowlist, then an optional codec.

Stage one turns a value into msgpack bytes. Native msgpack types are packed by
msgpack's C code without any Python walk (the hot path: a state of dicts,
lists, strings and ints); msgpack calls :meth:`Serializer._default` only for
the rest, which either encodes an allowlisted type as an ext value or refuses.
Where ormsgpack is installed (LangGraph brings it), a value that is plain data
through and through is packed by it instead, to the same bytes, faster
(:mod:`engine.serde._plain`).
A refusal is reported at write time, with the path to the offending part,
found by a second, slow walk (:mod:`engine.serde._path`).

Stage two, when a codec is configured, transforms the bytes (compression,
encryption); the type tag records which codec, so bytes written with one are
never read as if written with another.

Reading is the mirror, with the stored bytes treated as hostile: sizes are
bounded by the buffer (no multi-gigabyte allocation from a 5-byte header), ext
codes and registered names are looked up in fixed tables, and every failure
becomes :class:`~engine.errors.CorruptCheckpointError`.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import msgpack  # type: ignore[import-untyped]

from engine.errors import CorruptCheckpointError, SerializationError
from engine._langchain import serde as _langchain
from engine.serde._depth import pack_top
from engine.serde._ext import CODE_NAMES, DECODERS, ENCODERS, Code
from engine.serde._proven import Proven, Rebuilder, proves, rebuilder_of
from engine.serde._path import MAX_EXT_DEPTH, UNSTORABLE_HINT, find_problem
from engine.serde._plain import FAST, PlainPacker
from engine.serde._wire import int_too_long, may_be_unsendable
from engine.serde._registry import Entry, make_entry
from engine.types import Command, DeltaSnapshot, Interrupt, Overwrite, Send, TimeoutPolicy

__all__ = ["TAG", "Codec", "Serializer", "packs_as_is", "plain_packer"]

TAG = "msgpack"

_PACK_OPTIONS: dict[str, Any] = {
    # strict_types sends tuples, int/str subclasses (IntEnum, StrEnum) and
    # dict/list subclasses to default= instead of silently flattening them.
    "strict_types": True,
    "use_bin_type": True,
    "datetime": False,
    # Any Python str round-trips, even one holding lone surrogates.
    "unicode_errors": "surrogatepass",
}
# With json_safe: a lone surrogate fails the pack, in msgpack's C code (no walk).
_JSON_SAFE_PACK_OPTIONS = {**_PACK_OPTIONS, "unicode_errors": "strict"}
# What every top-level pack tries first: without unicode_errors msgpack encodes a str
# through CPython's own UTF-8 (cached on the str), a third faster on a version's meta
# than with an error handler named, and the same bytes for any str without a lone
# surrogate, which it refuses (UnicodeEncodeError): then the pack is made again with
# the options above.
_FAST_PACK_OPTIONS = {k: v for k, v in _PACK_OPTIONS.items() if k != "unicode_errors"}
# A packer keeps its buffer at the largest size it packed: one that packed more than this is not kept.
_POOLED_BYTES = 1 << 20


@runtime_checkable
class Codec(Protocol):
    """Transforms serialized bytes after msgpack: compression, encryption.

    A codec may define ``name`` (a short string): it becomes part of the type
    tag (``msgpack+<name>``) so reading knows which codec wrote the bytes.
    Without it the class name, lowercased, is used.
    """

    def encode(self, data: bytes) -> bytes:
        """Transform bytes for storage."""
        ...

    def decode(self, data: bytes) -> bytes:
        """Undo :meth:`encode`. Raise on bytes it did not produce."""
        ...


class Serializer:
    """Turns state values into ``(type_tag, bytes)`` and back, for an allowlist of types.

    Allowed: None, bool, int (any size), float, str, bytes, list, tuple, dict
    (keys of any allowed hashable type), set, frozenset, datetime, date, time,
    timedelta, UUID, Decimal; members of registered Enum classes; instances of
    registered dataclasses and Pydantic models; the engine's own
    ``Interrupt``, ``Send``, ``Command``, ``Overwrite``, ``DeltaSnapshot`` and ``TimeoutPolicy``, always registered; and every
    message class of ``langchain_core.messages`` when langchain-core is
    installed (:mod:`engine._langchain.serde`). ``bytearray``
    and ``memoryview`` are stored (and come back) as bytes.

    Args:
        types: classes to register at once (see :meth:`register`).
        codec: applied to the msgpack bytes on write and undone on read.
        json_safe: also refuse, at write time, what JSON cannot carry: NaN and
            infinities, integers longer than Python's int-to-str limit,
            strings with a lone surrogate, map keys that are not strings
            (:mod:`engine.serde._wire`). What a server sets: its wire is JSON,
            and a stored value it cannot send would make its thread unreadable.
            Off by default, as LangGraph stores such values.
    """

    __slots__ = ("_by_name", "_by_type", "_codec", "_local", "_packers", "_nests", "_plain", "_proven", "_rebuilders", "_tag", "json_safe")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's own ``dumps_typed(self, value)`` (LangGraph's signature, no ``path_prefix``) is
        called as it is written: the savers' ``path_prefix`` (for error messages) is dropped for it."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("dumps_typed")
        if own is None or "path_prefix" in inspect.signature(own).parameters:
            return

        @functools.wraps(own)
        def dumps_typed(self: Any, value: Any, *, path_prefix: str = "") -> tuple[str, bytes]:
            return own(self, value)  # type: ignore[no-any-return]

        cls.dumps_typed = dumps_typed  # type: ignore[method-assign]

    def __init__(self, *, types: Iterable[type] = (), codec: Codec | None = None, json_safe: bool = False) -> None:
        self.json_safe = json_safe
        self._by_name: dict[str, Entry] = {}
        self._by_type: dict[type, Entry] = {}
        self._codec = codec
        self._tag = TAG if codec is None else f"{TAG}+{_codec_name(codec)}"
        self._local = threading.local()
        #: idle top-level packers, given to the thread that packs and taken back (see :meth:`_dumps`)
        self._packers: list[msgpack.Packer] = []
        #: set once an ext value was packed: from then on a pack may be one re-entered from inside another
        self._nests = False
        #: plain data packed by ormsgpack where it is installed (engine/serde/_plain.py)
        self._plain = PlainPacker()
        #: LangChain messages' payloads whose validation gave back exactly their own fields, and how
        #: to rebuild each message class without validating such bytes again (engine/serde/_proven.py)
        self._proven = Proven()
        self._rebuilders: dict[str, Rebuilder | None] = {}
        self.register(Interrupt, Send, Command, Overwrite, DeltaSnapshot, TimeoutPolicy)
        self.register(*types)

    # -- configuration -----------------------------------------------------
    def register(self, *types: type) -> None:
        """Allow instances of these classes (Enums, dataclasses, Pydantic models).

        Each is stored under ``module:qualname`` and found again by that name
        in this serializer's registry, never by importing: register the same
        classes wherever the checkpoints are read.

        Raises:
            TypeError: a class of another kind.
            ValueError: a different class is already registered under the same name.
        """
        entries = [make_entry(cls) for cls in types]
        for entry in entries:
            known = self._by_name.get(entry.name)
            if known is not None and known.cls is not entry.cls:
                raise ValueError(f"another class is already registered as {entry.name!r}")
        for entry in entries:
            self._by_name[entry.name] = entry
            self._by_type[entry.cls] = entry

    def allow(self, *types: type) -> None:
        """:meth:`register`, except that a class of the same name replaces the one known.

        For classes a state schema names (see ``engine.graph._allowlist``): a
        function that builds its graph defines its schema's classes anew on
        every call, under the same names.
        """
        for entry in [make_entry(cls) for cls in types]:
            self._by_name[entry.name] = entry
            self._by_type[entry.cls] = entry

    def allow_entries(self, *entries: Entry) -> None:
        """:meth:`allow` for classes taken apart by an entry made elsewhere (a slotted class
        such as LangGraph's own ``Send``: see :mod:`engine.checkpoint._langgraph`)."""
        for entry in entries:
            self._by_name[entry.name] = entry
            self._by_type[entry.cls] = entry

    def _langchain_entries(self) -> dict[type, Entry]:
        """Allow LangChain's message classes (on first sight of one: importing them costs)."""
        entries = _langchain.entries()
        for entry in entries:
            self._by_name[entry.name] = entry
            self._by_type[entry.cls] = entry
        return {e.cls: e for e in entries}

    @property
    def registered(self) -> Mapping[str, type]:
        """Registered classes by stored name (read-only)."""
        return MappingProxyType({name: e.cls for name, e in self._by_name.items()})

    @property
    def tag(self) -> str:
        """The type tag this serializer writes: ``msgpack`` or ``msgpack+<codec>``."""
        return self._tag

    # -- writing -------------------------------------------------------------
    def dumps_typed(self, value: Any, *, path_prefix: str = "") -> tuple[str, bytes]:
        """Serialize ``value`` to ``(type_tag, bytes)``.

        Args:
            value: the value to store.
            path_prefix: where the value lives, prefixed to error messages
                (e.g. ``"state key 'messages'"``).

        Raises:
            SerializationError: some part of ``value`` is outside the
                allowlist; the message names the path to it.
        """
        return self._dumps(value, path_prefix, None)

    def dumps_channel(self, key: str, value: Any) -> tuple[str, bytes]:
        """:meth:`dumps_typed` for the value of state key ``key`` (errors name the key)."""
        if type(self).dumps_typed is not Serializer.dumps_typed:  # a subclass's own: it is the one called
            return self.dumps_typed(value, path_prefix=f"state key {key!r}")
        return self._dumps(value, "", key)

    def _dumps(self, value: Any, path_prefix: str, key: str | None) -> tuple[str, bytes]:
        """:meth:`dumps_typed`; ``key``: a state key the errors name instead (their text made on an error only)."""
        try:
            if self._nests and self._local.__dict__.get("depth"):
                # Re-entered from inside a pack (a model's dump calling us)? Only after _default ran once.
                data = self._pack_nested(value)
            else:
                plain = self._plain.pack(value) if FAST else None
                data = self._pack_top(value) if plain is None else plain  # (plain: ormsgpack's, msgpack's bytes)
        except Exception as exc:  # whatever failed, the message gets a path
            raise self._write_error(value, _where(path_prefix, key), exc) from exc
        if self.json_safe and may_be_unsendable(data):
            problem = find_problem(value, self._by_type, json_safe=True)
            if problem is not None:  # else a float's bit pattern inside a string's bytes
                raise self._write_error(value, _where(path_prefix, key), ValueError(problem.reason))
        if self._codec is not None:
            try:
                data = self._codec.encode(data)
            except Exception as exc:  # a codec's own failure, reported as a write failure
                path_prefix = _where(path_prefix, key)
                where = f"{path_prefix}: " if path_prefix else ""
                raise SerializationError(f"{where}codec {self._tag!r} failed to encode: {exc}") from exc
        return self._tag, data

    def _pack_top(self, value: Any) -> bytes:
        """``value`` packed by msgpack's packer (:func:`~engine.serde._depth.pack_top`), its hook for the rest.
        A packer from the pool of idle ones, given back after (list.pop and append are atomic): not one per
        thread, whose first use cost more than a small pack in the worker threads LangGraph makes per invoke."""
        packers = self._packers
        try:
            packer = packers.pop()
        except IndexError:
            packer = msgpack.Packer(default=self._default, **_FAST_PACK_OPTIONS)
        try:
            data = pack_top(packer.pack, value)
        except UnicodeEncodeError:
            if self.json_safe:
                raise  # a lone surrogate: JSON cannot carry it
            packers.append(packer)  # (a failed pack leaves the packer's buffer empty)
            # a str with a lone surrogate: stored as is (LangGraph's serializer keeps it too)
            return pack_top(msgpack.Packer(default=self._default, **_PACK_OPTIONS).pack, value)
        if len(data) <= _POOLED_BYTES:
            packers.append(packer)
        return data

    def dumps(self, value: Any, *, path_prefix: str = "") -> bytes:
        """Serialize to bytes alone, the tag being implied by this serializer's codec."""
        return self.dumps_typed(value, path_prefix=path_prefix)[1]

    def _pack_nested(self, value: Any) -> bytes:
        options = _JSON_SAFE_PACK_OPTIONS if self.json_safe else _PACK_OPTIONS
        return msgpack.packb(value, default=self._default, **options)

    def _default(self, obj: Any) -> msgpack.ExtType:
        """msgpack's callback for every non-native value: encode it or refuse."""
        self._nests = True
        local = self._local
        depth = getattr(local, "depth", 0)
        if depth >= MAX_EXT_DEPTH:
            raise ValueError("nested too deeply")
        local.depth = depth + 1
        try:
            t = type(obj)
            if t is int and self.json_safe and int_too_long(obj):
                raise ValueError("an integer longer than the wire can carry")
            encode = ENCODERS.get(t)
            if encode is not None:
                code, payload = encode(obj, self._pack_nested)
                return msgpack.ExtType(code, payload)
            entry = self._by_type.get(t)
            if entry is None and _langchain.is_message_type(t):
                entry = self._langchain_entries().get(t)
            if entry is not None:
                return msgpack.ExtType(Code.REGISTERED, self._pack_nested([entry.name, entry.dump(obj)]))
            if _langchain.is_text(t):
                return str.__str__(obj)  # msgpack packs the plain str
            raise TypeError(f"cannot store a value of type {t.__name__} {UNSTORABLE_HINT}")
        finally:
            local.depth = depth

    def _write_error(self, value: Any, path_prefix: str, exc: Exception) -> SerializationError:
        problem = find_problem(value, self._by_type, json_safe=True) if self.json_safe else find_problem(value, self._by_type)
        path, reason = (problem.path, problem.reason) if problem else ("", str(exc))
        where = " ".join(p for p in (path_prefix, f"at {path}" if path else "") if p) or "at the top level"
        return SerializationError(f"{where}: {reason}")

    # -- reading -------------------------------------------------------------
    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Rebuild a value from ``(type_tag, bytes)``.

        Never imports a module or calls anything the bytes name: ext codes and
        class names are looked up in this serializer's fixed tables.

        Raises:
            CorruptCheckpointError: an unknown tag, codec, ext code or class
                name, or bytes that do not decode.
        """
        tag, payload = data
        if not isinstance(payload, (bytes, bytearray, memoryview)):  # a database column may hold anything
            raise CorruptCheckpointError(f"stored data is a {type(payload).__name__}, not bytes")
        if tag == self._tag:
            codec = self._codec
        elif tag == TAG:
            codec = None  # written before a codec was configured
        else:
            raise CorruptCheckpointError(
                f"unknown serialization tag {tag!r} (this serializer reads {TAG!r}"
                + (f" and {self._tag!r})" if self._tag != TAG else ")")
            )
        if codec is not None:
            try:
                payload = codec.decode(bytes(payload))
            except Exception as exc:  # stored bytes the codec rejects are corrupt
                raise CorruptCheckpointError(f"codec {tag!r} could not decode stored bytes: {exc}") from exc
        return self._unpack(payload)

    def loads(self, data: bytes) -> Any:
        """Rebuild a value from :meth:`dumps` bytes."""
        return self.loads_typed((self._tag, data))

    def _unpack(self, data: bytes) -> Any:
        # The decoders' options (raw=False and use_list=True are msgpack's defaults), given as literal keywords:
        # a call's keywords cost a Cython function ~0.05 µs each, and a message is one call. msgpack's length
        # limits (max_str_len, max_array_len, ... and an Unpacker's max_buffer_size) default to the payload's
        # own length, so no lying header can make it allocate more than the bytes it was given. msgpack's own
        # timestamp ext (code -1) decodes to an aware datetime (timestamp=3), an allowed type; this serializer
        # never writes it.
        try:
            return msgpack.unpackb(data, ext_hook=self._ext_hook, strict_map_key=False, unicode_errors="surrogatepass", timestamp=3)
        except CorruptCheckpointError:
            raise
        except Exception as exc:  # hostile bytes may fail in any way
            raise CorruptCheckpointError(f"stored bytes do not decode: {type(exc).__name__}: {exc}") from exc

    def _unpack_nested(self, data: bytes) -> Any:
        """Decode an ext payload, bounding how deep ext values may nest.

        ``unpackb`` keeps its ~40 KB parse stack on the C stack, so stored
        bytes nesting a few hundred ext values inside each other would crash
        the process with unpackb per level. The first few levels (every
        honest value: a message in a list, a model in a model) use it, being
        several times cheaper to start; deeper ones use an ``Unpacker``, which
        keeps its stack on the heap, and the depth counter refuses the
        nesting long before it could matter.
        """
        local = self._local
        depth = getattr(local, "read_depth", 0)
        if depth >= MAX_EXT_DEPTH:
            raise CorruptCheckpointError(f"stored data nests more than {MAX_EXT_DEPTH} ext values")
        local.read_depth = depth + 1
        try:
            n = len(data)
            if depth < _C_STACK_LEVELS:
                return msgpack.unpackb(data, ext_hook=self._ext_hook, strict_map_key=False, unicode_errors="surrogatepass", timestamp=3)
            unpacker = msgpack.Unpacker(
                None, ext_hook=self._ext_hook, max_buffer_size=n, strict_map_key=False, unicode_errors="surrogatepass", timestamp=3
            )
            unpacker.feed(data)
            value = unpacker.unpack()
            if unpacker.tell() != n:
                raise ValueError("extra bytes after the value")
            return value
        except CorruptCheckpointError:
            raise
        except Exception as exc:  # hostile bytes may fail in any way
            raise CorruptCheckpointError(f"stored bytes do not decode: {type(exc).__name__}: {exc}") from exc
        finally:
            local.read_depth = depth

    def _ext_hook(self, code: int, payload: bytes) -> Any:
        if code == Code.REGISTERED:
            rebuild = self._proven.get(payload)
            if rebuild is not None:  # bytes that validated to exactly their fields: its class's rebuild (_load_registered)
                return rebuild(self._unpack_nested(payload)[1])
            return self._load_registered(payload)
        decode = DECODERS.get(code)
        if decode is None:
            raise CorruptCheckpointError(f"unknown msgpack ext code {code} in stored data")
        try:
            return decode(payload, self._unpack_nested)
        except CorruptCheckpointError:
            raise
        except Exception as exc:  # a decoder rejecting its payload
            raise CorruptCheckpointError(f"bad stored {CODE_NAMES[code]}: {exc}") from exc

    def _load_registered(self, payload: bytes) -> Any:
        item = self._unpack_nested(payload)
        if type(item) is not list or len(item) != 2 or type(item[0]) is not str:
            raise CorruptCheckpointError("bad stored registered value: expected [name, data]")
        name, data = item
        entry = self._by_name.get(name)
        if entry is None and _langchain.stored_name(name):
            try:
                self._langchain_entries()
            except ImportError:
                raise CorruptCheckpointError(
                    f"stored data holds a LangChain message ({name!r}); install langchain-core to read it"
                ) from None
            entry = self._by_name.get(name)
        if entry is None:
            raise CorruptCheckpointError(
                f"stored data names an unknown class {name!r}: only classes registered with "
                "this serializer are rebuilt (reading never imports modules)"
            )
        rebuild = self._rebuilders.get(name, _UNSET)
        if rebuild is _UNSET:
            rebuild = self._rebuilders[name] = _langchain_rebuilder(name, entry) if self._codec is None else None
        try:
            value = entry.load(data)
        except Exception as exc:  # a registered class rejecting stored data
            raise CorruptCheckpointError(f"could not rebuild {name!r} from stored data: {exc}") from exc
        if rebuild is not None and payload not in self._proven:
            fresh = self._unpack_nested(payload)  # the fields as stored: a validator may have changed ``data``
            if proves(value, rebuild(fresh[1])):
                self._proven.add(bytes(payload), rebuild)
        return value


_UNSET: Any = object()


def packs_as_is(serde: Any) -> bool:
    """Whether ``serde`` stores a value as :class:`Serializer` packs it (tag :data:`TAG`): ours, or a subclass
    keeping its ``dumps_typed`` and ``_dumps``, without a codec. A saver may then pack plain data itself."""
    cls = type(serde)
    if cls is not Serializer and not (
        issubclass(cls, Serializer) and cls.dumps_typed is Serializer.dumps_typed and cls._dumps is Serializer._dumps
    ):
        return False
    return serde._codec is None  # type: ignore[no-any-return]


def plain_packer(serde: Any) -> Callable[[Any], bytes | None] | None:
    """What packs plain data to ``serde.dumps_typed``'s bytes without its layers (it answers None for data
    that is not plain); None without ormsgpack, with ``json_safe`` (its checks) or where :func:`packs_as_is`
    does not hold. For a saver's hot path (engine.checkpoint._memory_write)."""
    return serde._plain.pack if FAST and packs_as_is(serde) and not serde.json_safe else None


def _langchain_rebuilder(name: str, entry: Entry) -> Rebuilder | None:
    """How to rebuild a LangChain message class without validation (None for any other class: only
    their validators are known to be functions of the stored fields alone)."""
    if not (_langchain.stored_name(name) and name.removeprefix(_langchain.PREFIX) in _langchain.MESSAGE_CLASSES):
        return None
    return rebuilder_of(entry.cls)


#: Ext nesting levels decoded with ``unpackb`` (at most ~40 KB of C stack each).
_C_STACK_LEVELS = 8


def _where(path_prefix: str, key: str | None) -> str:
    """An error's prefix: ``path_prefix``, or the state key's."""
    return path_prefix if key is None else f"state key {key!r}"


def _codec_name(codec: Codec) -> str:
    name = getattr(codec, "name", None)
    return name if isinstance(name, str) and name else type(codec).__name__.lower()
