"""The analysis cache's entry format: a run and its analysis as plain data that cannot execute
anything when it is read (no pickle, no code objects), decoded against the types it must hold.

An entry is one numpy ``.npz`` file, read with ``allow_pickle=False``:
- ``header``: UTF-8 JSON bytes: the format's name and version and the entry's key;
- ``tree``: MessagePack bytes, the value as msgspec encodes it (a ``Value``, values.py, is the list
  of its fields; the two dataclasses, ``Measurement`` and ``SampleSet``, maps; a float keeps its 64
  bits, NaN and infinities included);
- one array per dtype (``<f8``, ``<i8``, ``|b1``, ...) holding every numpy array of the value,
  end to end; in the tree an array is ``[dtype, offset, shape]``.

The tree is decoded by msgspec against the declared type of the value (for the cache:
``(Run, notes, RunResult, where a large run's samples lie)``), at C speed: each class is built from the fields its type hints
declare, so nothing but those classes and scalars can come out of an entry, and a missing or extra
field, a value of another type, an unknown dtype or an array outside its data refuses the entry
(``EntryError``). A numpy scalar is kept as the Python number it holds, and a value read back is
equal to the one written (``encode`` writes it again and compares the bytes), not identical: two
references to one object come back as two equal objects. Limits of the check: a field typed
``Any`` (a record's ``extra`` mapping) takes any MessagePack value but an extension, so bytes or
a timestamp there reach the reader; the two dataclasses (``Measurement``, ``SampleSet``) are maps,
whose keys beyond the fields are ignored and whose missing fields take their defaults.

msgspec is used rather than a hand-written reader: it checks every field against its type while
it reads, and reads several times faster than the tree of tagged lists of version 2, which was
built in Python (bench/RESULTS.md §33).
"""

from __future__ import annotations

import gc
import io
import json
import math
from typing import Any, BinaryIO, Callable

import msgspec
import numpy as np

FORMAT = "msgperf-analysis-cache"
VERSION = 3  # 1: a tagged tree as JSON text; 2: that tree as MessagePack; 3: msgspec's typed encoding

# numbers only: an object or string dtype never enters an entry
DTYPES = frozenset(["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"])


class EntryError(ValueError):
    """An entry that is not one this code wrote for this key (corrupt, foreign or forged)."""


class Unkeepable(TypeError):
    """A value this format does not hold (an object of no declared type), or one that would not
    come back the same (a type hint that does not describe its value)."""


class _Arrays:
    """The encoder's side of the arrays: each array once (by identity), end to end per dtype."""

    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray]] = {}
        self.ends: dict[str, int] = {}
        self.given: dict[int, list[Any]] = {}
        self.held: list[np.ndarray] = []  # what the ids are of, alive until the end

    def hook(self, x: Any) -> Any:
        if isinstance(x, np.ndarray):
            return self.array(x)
        if isinstance(x, np.generic):
            if x.dtype.kind not in "biuf":
                raise Unkeepable(f"a numpy scalar of dtype {x.dtype}")
            return x.item()
        raise Unkeepable(f"a {type(x).__module__}.{type(x).__qualname__}, which the format does not hold")

    def array(self, a: np.ndarray) -> list[Any]:
        node = self.given.get(id(a))
        if node is not None:
            return node
        dtype = a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype
        if dtype.str not in DTYPES:
            raise Unkeepable(f"an array of dtype {a.dtype}")
        offset = self.ends.get(dtype.str, 0)
        self.parts.setdefault(dtype.str, []).append(np.ascontiguousarray(a, dtype=dtype).ravel())
        self.ends[dtype.str] = offset + a.size
        node = [dtype.str, offset, list(a.shape)]
        self.given[id(a)] = node
        self.held.append(a)
        return node


def _json(value: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(value, separators=(",", ":")).encode(), dtype=np.uint8)


def encode(value: Any, key: str, kind: Any, out: BinaryIO) -> None:
    """Write ``value`` (of type ``kind``) as an entry for ``key`` to ``out``; raises ``Unkeepable``
    for what the format cannot hold, what the reader would refuse, and what would not come back the
    same: the entry is read back and written again first, and must give the same bytes (msgspec
    turns an int in a ``float`` field into a float, a list in a ``tuple`` field into a tuple, so a
    type hint that lies would make a warm output differ from a cold one). The check costs one more
    reading and writing of the tree, only when an entry is written."""
    arrays = _Arrays()
    try:
        tree = msgspec.msgpack.encode(value, enc_hook=arrays.hook)
    except OverflowError:
        raise Unkeepable("an integer beyond 64 bits") from None
    except TypeError as exc:  # msgspec's wording for an object it cannot encode
        raise Unkeepable(str(exc)[:200]) from None
    data = {dtype: np.concatenate(parts) for dtype, parts in arrays.parts.items()}
    try:
        again = msgspec.msgpack.encode(_decode(tree, data, kind), enc_hook=_Arrays().hook)
    except EntryError as exc:
        raise Unkeepable(f"a value its declared type does not describe ({exc})") from None
    if again != tree:
        raise Unkeepable("a value that does not come back the same (a type hint that does not describe it)")
    np.savez(out, header=_json({"format": FORMAT, "version": VERSION, "key": key}),
             tree=np.frombuffer(tree, dtype=np.uint8), **data)


def _array_hook(arrays: dict[str, np.ndarray]) -> Callable[[type, Any], Any]:
    """msgspec's hook for the one type it does not know: an array, ``[dtype, offset, shape]``; one
    array written from two places comes back as one object (written again, it is kept once)."""
    made: dict[tuple[str, int, tuple[int, ...]], np.ndarray] = {}

    def hook(kind: type, node: Any) -> Any:
        if kind is not np.ndarray:
            raise EntryError(f"a value of type {getattr(kind, '__name__', kind)}")
        if not (type(node) is list and len(node) == 3 and type(node[0]) is str and type(node[1]) is int
                and type(node[2]) is list and all(type(n) is int and n >= 0 for n in node[2])):
            raise EntryError("a malformed array")
        key = (node[0], node[1], tuple(node[2]))
        if key in made:
            return made[key]
        whole = arrays.get(node[0])
        if whole is None:
            raise EntryError("an array of no data member")
        count = math.prod(node[2])
        if not 0 <= node[1] <= node[1] + count <= whole.size:
            raise EntryError("an array outside its data")
        made[key] = whole[node[1]:node[1] + count].reshape(node[2])
        return made[key]
    return hook


def _no_extension(code: int, data: memoryview) -> Any:
    raise EntryError(f"a MessagePack extension (type {code})")


def _decode(tree: bytes, arrays: dict[str, np.ndarray], kind: Any) -> Any:
    collecting = gc.isenabled()
    gc.disable()  # ~45,000 new objects, none in a cycle: the collector's passes over them cost a third
    try:
        # a decoder per entry (its hook reads this entry's arrays): msgspec analyses a type once,
        # so only the first costs (~15 ms for a RunResult), the others microseconds
        decoder = msgspec.msgpack.Decoder(kind, dec_hook=_array_hook(arrays), ext_hook=_no_extension)
    except (TypeError, NameError) as exc:  # a type hint msgspec cannot read: never cached, never a traceback
        raise EntryError(f"a type msgspec cannot decode ({str(exc)[:120]})") from None
    try:
        return decoder.decode(tree)
    except msgspec.ValidationError as exc:  # a value its field's type refuses, a missing field, a bad array
        cause = exc.__cause__ or exc.__context__
        raise EntryError(str(cause if isinstance(cause, EntryError) else exc)[:200]) from None
    except msgspec.DecodeError as exc:  # not MessagePack
        raise EntryError(f"a malformed tree ({str(exc)[:80]})") from None
    except RecursionError:
        raise EntryError("nested too deep") from None
    finally:
        if collecting:
            gc.enable()


def _text(member: np.ndarray | None) -> str:
    if member is None or member.dtype != np.uint8 or member.ndim != 1:
        raise EntryError("a missing header or tree")
    try:
        return member.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise EntryError("text that is not UTF-8") from None


def decode(data: BinaryIO, key: str, kind: Any) -> Any:
    """The value of type ``kind`` in the entry in ``data``, written for ``key``; raises
    ``EntryError`` for anything else (never runs code from the entry: numpy refuses pickled
    members, and msgspec builds only the declared types)."""
    try:
        with np.load(data, allow_pickle=False) as npz:
            members = {name: npz[name] for name in npz.files}
    except Exception as exc:  # noqa: BLE001 - not an npz, a truncated zip, a pickled member
        raise EntryError(f"not an entry ({type(exc).__name__})") from None
    header, tree = _text(members.pop("header", None)), members.pop("tree", None)
    if tree is None or tree.dtype != np.uint8 or tree.ndim != 1:
        raise EntryError("a missing header or tree")
    try:
        head = json.loads(header)
    except (ValueError, RecursionError):
        raise EntryError("a header that is not JSON") from None
    if not (isinstance(head, dict) and head.get("format") == FORMAT and head.get("version") == VERSION):
        raise EntryError("another format or version")
    if head.get("key") != key:
        raise EntryError("an entry for another key")
    for name, array in members.items():
        if name not in DTYPES or array.dtype.str != name or array.ndim != 1:
            raise EntryError(f"a member {name[:20]!r} that is not a data array")
    return _decode(tree.tobytes(), members, kind)


def encoded(value: Any, key: str, kind: Any) -> bytes:
    """``encode`` into bytes (tests compare two encodings)."""
    out = io.BytesIO()
    encode(value, key, kind, out)
    return out.getvalue()
