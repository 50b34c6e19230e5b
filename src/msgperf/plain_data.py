"""The analysis cache's entry format: a run and its analysis as plain data that cannot execute
anything when it is read (no pickle, no code objects).

An entry is one numpy ``.npz`` file, read with ``allow_pickle=False``:
- ``header``: UTF-8 JSON bytes: the format's name and version, the entry's key and the table of
  the dataclasses it holds (each class's name and field names);
- ``tree``: MessagePack bytes, the values (msgspec reads them 3-5x faster than the JSON text of
  version 1, and holds a float's 64 bits, NaN and infinities included);
- one array per dtype (``<f8``, ``<i8``, ``|b1``, ...) holding every numpy array of the tree, end
  to end; a tree node names its dtype, offset and shape.

In the tree (the member ``tree``: MessagePack without maps or bytes, nested at most
``MAX_DEPTH`` deep, which the reader's declared type enforces), ``None``, booleans, integers,
floats (NaN and infinities included) and strings are MessagePack's own; every container is a list
whose first item says what it is: ``[k, field values...]`` a dataclass of the k-th
class of the table, ``["t", ...]`` a tuple, ``["l", ...]`` a list, ``["d", key, value, ...]`` a
dict, ``["a", dtype, offset, shape]`` an array, ``["n", dtype, value]`` a numpy scalar, ``["r",
n]`` the n-th dataclass or array already given (numbered as each is complete): a result refers
to one series from two places, and the renderers compare them by identity.

Speed matters (a warm ``show`` reads an entry of ~200,000 values): a dataclass is rebuilt as
pickle rebuilds one, its ``__dict__`` set from the fields, without calling ``__init__`` (the
classes have no ``__post_init__``; a field read through a property, ``Measurement.samples_s``,
goes through the constructor instead).

Reading constructs only the dataclasses of ``ALLOWED`` (the ones a ``Run`` and a ``RunResult``
are made of; tests/test_plain_data.py keeps the list equal to what their type hints reach), and
only when the entry's field names are the class's own: anything else, a truncated file, a
dtype outside ``DTYPES`` or an offset outside its array raises ``EntryError``.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import inspect
import io
import json
import math
from functools import cache
from operator import attrgetter
from typing import Any, BinaryIO, Callable

import msgspec
import numpy as np

FORMAT = "msgperf-analysis-cache"
VERSION = 2  # 1: the tree as JSON text

# numbers only: an object or string dtype never enters an entry
DTYPES = frozenset(["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"])

ALLOWED = frozenset("""
msgperf.analysis.launches.across_launches:Interval
msgperf.analysis.model.anomalies:Anomaly
msgperf.analysis.answer:Answer
msgperf.analysis.answer:Figure
msgperf.analysis.answer:Step
msgperf.analysis.answer:Switch
msgperf.analysis.answer:Warning
msgperf.analysis.model.breakpoint_labels:BreakpointLabel
msgperf.analysis.tables.buffering:BufferingRow
msgperf.analysis.tables.catalog_view:PatternFacts
msgperf.analysis.tables.buffering:BufferingEstimate
msgperf.analysis.caveats:Caveat
msgperf.analysis.collectives.fits:AlgorithmModel
msgperf.analysis.collectives.fits:CollectiveFit
msgperf.analysis.collectives.fits:Collectives
msgperf.analysis.collectives.model:PointToPoint
msgperf.analysis.collectives.naming:Prediction
msgperf.analysis.collectives.naming:SizeRange
msgperf.analysis.collectives.naming:SizeVerdict
msgperf.analysis.launches.conditions:LaunchConditions
msgperf.analysis.launches.conditions:SharedCore
msgperf.analysis.launches.launches:LaunchComparison
msgperf.analysis.launches.launches:LaunchSpread
msgperf.analysis.launches.launches:LaunchVerdict
msgperf.analysis.model.hockney:HockneyFit
msgperf.analysis.model.hockney:LineFit
msgperf.analysis.model.loggp:Line
msgperf.analysis.model.loggp:LogGP
msgperf.analysis.model.loggp:LogGPAnalysis
msgperf.analysis.model.loggp:LogGPPoint
msgperf.analysis.model.loggp:ModelComparison
msgperf.analysis.model.piecewise:Breakpoint
msgperf.analysis.model.piecewise:PiecewiseFit
msgperf.analysis.model.piecewise:SizeResidual
msgperf.analysis.model.points:SizePoint
msgperf.analysis.model.regimes:Characteristics
msgperf.analysis.model.regimes:SizeRegime
msgperf.analysis.model.regimes:Term
msgperf.analysis.samples.drift:Drift
msgperf.analysis.samples.measurement:MeasurementAnalysis
msgperf.analysis.samples.modality:Modality
msgperf.analysis.samples.outliers:Outliers
msgperf.analysis.samples.pair_spread:PairSpread
msgperf.analysis.tables.combining:CombiningPrediction
msgperf.analysis.tables.compat_collectives:ToolRow
msgperf.analysis.tables.contention:Contention
msgperf.analysis.tables.contention:ContentionCell
msgperf.analysis.tables.contention:ContentionRow
msgperf.analysis.tables.contention:MatrixGrid
msgperf.analysis.tables.contention:SlowPair
msgperf.analysis.tables.eager:EagerLimit
msgperf.analysis.tables.eager:ProbeRow
msgperf.analysis.tables.first_message:FirstMessage
msgperf.analysis.tables.first_message:FirstMessages
msgperf.analysis.tables.machine:Machine
msgperf.analysis.tables.placement:PlacementModel
msgperf.analysis.tables.placement:PlacementPair
msgperf.analysis.result:CombineRow
msgperf.analysis.result:LogGPResult
msgperf.analysis.result:RowTable
msgperf.analysis.result:RunResult
msgperf.analysis.result:SeriesKey
msgperf.analysis.result:SeriesResult
msgperf.analysis.tables.run_source:RunSource
msgperf.analysis.samples.sample_stats:SampleStats
msgperf.analysis.tables.saphir:SaphirRow
msgperf.analysis.model.series:LaunchModel
msgperf.analysis.model.series:ParameterAcrossLaunches
msgperf.analysis.model.series:SeriesAnalysis
msgperf.analysis.model.series:SizeAnalysis
msgperf.analysis.tables.side_by_side:BarrierRow
msgperf.analysis.tables.side_by_side:Cell
msgperf.analysis.tables.side_by_side:ColumnsRow
msgperf.analysis.tables.side_by_side:ColumnsTable
msgperf.analysis.tables.side_by_side:CompatRow
msgperf.analysis.tables.side_by_side:Difference
msgperf.analysis.tables.side_by_side:FloorRow
msgperf.analysis.tables.side_by_side:OverlapRow
msgperf.analysis.tables.side_by_side:PairRow
msgperf.analysis.tables.side_by_side:VariantPair
msgperf.analysis.tables.size_rows:SizeRow
msgperf.analysis.model.sweep:Provenance
msgperf.analysis.model.sweep:SweepAnalysis
msgperf.plan:Plan
msgperf.records.format:ClockSelfTest
msgperf.records.format:HostFacts
msgperf.records.format:HostLoad
msgperf.records.format:Launch
msgperf.records.format:LaunchHost
msgperf.records.format:Measurement
msgperf.records.format:PatternInfo
msgperf.records.format:RankPlacement
msgperf.records.format:Run
msgperf.records.format:RunInfo
msgperf.records.format:VariantInfo
""".split())


class EntryError(ValueError):
    """An entry that is not one this code wrote for this key (corrupt, foreign or forged)."""


class Unkeepable(TypeError):
    """A value this format does not hold (a class outside ``ALLOWED``, samples waiting on disk)."""


def class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


class _Encoder:
    def __init__(self) -> None:
        self.classes: dict[type, tuple[int, Callable[[Any], tuple]]] = {}
        self.table: list[list[Any]] = []
        self.arrays: dict[str, list[np.ndarray]] = {}
        self.ends: dict[str, int] = {}
        self.given: dict[int, int] = {}  # id() of a dataclass or an array -> its number
        self.held: list[Any] = []  # what the ids are of, alive until the end
        self.measurement = -1  # the Measurement's class index (its samples may wait on disk)

    def value(self, x: Any) -> Any:
        t = type(x)
        if x is None or t is str or t is float or t is int or t is bool:
            return x
        value = self.value
        if t is tuple:
            return ["t", *[v if type(v) in _SCALARS else value(v) for v in x]]
        number = self.given.get(id(x))
        if number is not None:
            return ["r", number]
        known = self.classes.get(t)
        if known is not None:
            if known[0] == self.measurement and x.spilled:
                raise Unkeepable("samples kept in a temporary file")
            node = [known[0], *[v if type(v) in _SCALARS else value(v) for v in known[1](x)]]
        elif t is list:
            return ["l", *[v if type(v) in _SCALARS else value(v) for v in x]]
        elif t is dict:
            node = ["d"]
            for k, v in x.items():
                node.append(value(k))
                node.append(value(v))
            return node
        elif t is np.ndarray:
            node = self.array(x)
        elif isinstance(x, np.generic):
            dtype = x.dtype.newbyteorder("<") if x.dtype.byteorder == ">" else x.dtype
            if dtype.str not in DTYPES:
                raise Unkeepable(f"a numpy scalar of dtype {x.dtype}")
            return ["n", dtype.str, x.item()]
        else:
            self.dataclass(t)
            return self.value(x)
        self.given[id(x)] = len(self.held)
        self.held.append(x)
        return node

    def dataclass(self, t: type) -> None:
        if not (dataclasses.is_dataclass(t) and class_name(t) in ALLOWED):
            raise Unkeepable(f"{t.__module__}.{t.__qualname__} is not a msgperf result class")
        names = [f.name for f in dataclasses.fields(t)]
        fields = attrgetter(*names) if len(names) > 1 else (lambda x, n=names: (getattr(x, n[0]),) if n else ())
        index = len(self.table)
        self.classes[t] = (index, fields)
        self.table.append([class_name(t), names])
        if class_name(t) == "msgperf.records.format:Measurement":
            self.measurement = index

    def array(self, a: np.ndarray) -> list[Any]:
        dtype = a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype
        if dtype.str not in DTYPES:
            raise Unkeepable(f"an array of dtype {a.dtype}")
        offset = self.ends.get(dtype.str, 0)
        self.arrays.setdefault(dtype.str, []).append(np.ascontiguousarray(a, dtype=dtype).ravel())
        self.ends[dtype.str] = offset + a.size
        return ["a", dtype.str, offset, list(a.shape)]


_SCALARS = frozenset([type(None), str, float, int, bool])


def _json(value: Any) -> np.ndarray:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, check_circular=False)
    return np.frombuffer(text.encode(), dtype=np.uint8)


def _packed(tree: Any) -> np.ndarray:
    """The tree as MessagePack; ``Unkeepable`` for what the reader would refuse (an integer beyond 64
    bits, nesting beyond ``MAX_DEPTH``), so that no entry is written only to be refused and rewritten
    on every reading. The check reads the bytes back: ~25 ms on a run of every pattern, beside the
    seconds its analysis took."""
    try:
        packed = msgspec.msgpack.encode(tree)
    except OverflowError:
        raise Unkeepable("an integer beyond 64 bits") from None
    try:
        _tree_reader().decode(packed)
    except msgspec.DecodeError:
        raise Unkeepable(f"a value nested deeper than {MAX_DEPTH}") from None
    return np.frombuffer(packed, dtype=np.uint8)


# Deeper than any result (a run's tree is 12 deep): a forged entry cannot exhaust the stack
MAX_DEPTH = 48


@cache
def _tree_reader() -> msgspec.msgpack.Decoder:
    """A decoder of the tree's type: scalars and lists of them, ``MAX_DEPTH`` deep (msgspec takes no
    recursive alias), so a map, bytes or an extension is refused while it is read, at C speed."""
    node: Any = None | bool | int | float | str
    for _ in range(MAX_DEPTH):
        node = None | bool | int | float | str | list[node]
    return msgspec.msgpack.Decoder(node)


def encode(value: Any, key: str, out: BinaryIO) -> None:
    """Write ``value`` as an entry for ``key`` to ``out``; raises ``Unkeepable``."""
    enc = _Encoder()
    collecting = gc.isenabled()
    gc.disable()  # as in decode
    try:
        tree = enc.value(value)
    finally:
        if collecting:
            gc.enable()
    arrays = {dtype: np.concatenate(parts) for dtype, parts in enc.arrays.items()}
    np.savez(out, header=_json({"format": FORMAT, "version": VERSION, "key": key, "classes": enc.table}),
             tree=_packed(tree), **arrays)


def _resolve(entry: Any) -> tuple[type, tuple[str, ...], bool]:
    """(class, field names, whether it is built by its constructor) of a class-table entry."""
    if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
            and isinstance(entry[1], list)):
        raise EntryError("a malformed class entry")
    name, names = entry
    if name not in ALLOWED:
        raise EntryError(f"{name[:80]!r} is not a msgperf result class")
    module, _, qualname = name.partition(":")
    cls = getattr(importlib.import_module(module), qualname, None)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise EntryError(f"{name} is not a dataclass")
    fields = dataclasses.fields(cls)
    if [f.name for f in fields] != names:
        raise EntryError(f"{name}'s fields are not this code's")
    constructed = (hasattr(cls, "__post_init__") or hasattr(cls, "__slots__")
                   or any(isinstance(inspect.getattr_static(cls, f.name, None), property) or not f.init
                          for f in fields))
    return cls, tuple(names), constructed


def _decoder(table: Any, arrays: dict[str, np.ndarray]) -> Callable[[Any], Any]:
    if not isinstance(table, list):
        raise EntryError("no class table")
    classes = [_resolve(entry) for entry in table]
    given: list[Any] = []
    new = object.__new__

    def value(x: list) -> Any:
        tag = x[0]
        if type(tag) is int:
            if not 0 <= tag < len(classes):
                raise EntryError("a class index out of range")
            cls, names, constructed = classes[tag]
            if len(x) != 1 + len(names):
                raise EntryError(f"{cls.__qualname__} with {len(x) - 1} fields")
            fields = zip(names, [v if type(v) is not list else value(v) for v in x[1:]])
            if constructed:
                made = cls(**dict(fields))
            else:
                made = new(cls)
                made.__dict__.update(fields)
            given.append(made)
            return made
        if tag == "t":
            return tuple([v if type(v) is not list else value(v) for v in x[1:]])
        if tag == "r":
            if len(x) != 2 or type(x[1]) is not int or not 0 <= x[1] < len(given):
                raise EntryError("a reference to nothing given before")
            return given[x[1]]
        if tag == "l":
            return [v if type(v) is not list else value(v) for v in x[1:]]
        if tag == "a":
            made = _array(x, arrays)
            given.append(made)
            return made
        if tag == "d":
            if len(x) % 2 != 1:
                raise EntryError("a dict with a key and no value")
            items = [v if type(v) is not list else value(v) for v in x[1:]]
            return dict(zip(items[0::2], items[1::2]))  # an unhashable key: TypeError, refused below
        if tag == "n":
            if len(x) != 3 or x[1] not in DTYPES or type(x[2]) not in (int, float, bool):
                raise EntryError("a malformed numpy scalar")
            return np.dtype(x[1]).type(x[2])
        raise EntryError(f"an unknown tag {str(tag)[:20]!r}")

    return lambda tree: value(tree) if type(tree) is list else tree


def _array(x: list[Any], arrays: dict[str, np.ndarray]) -> np.ndarray:
    if (len(x) != 4 or x[1] not in arrays or type(x[2]) is not int or type(x[3]) is not list
            or not all(type(n) is int and n >= 0 for n in x[3])):
        raise EntryError("a malformed array")
    whole = arrays[x[1]]
    count = math.prod(x[3])
    if not 0 <= x[2] <= x[2] + count <= whole.size:
        raise EntryError("an array outside its data")
    return whole[x[2]:x[2] + count].reshape(x[3])


def _text(member: np.ndarray | None) -> str:
    if member is None or member.dtype != np.uint8 or member.ndim != 1:
        raise EntryError("a missing header or tree")
    try:
        return member.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise EntryError("text that is not UTF-8") from None


def decode(data: BinaryIO, key: str) -> Any:
    """The value of the entry in ``data``, written for ``key``; raises ``EntryError`` for
    anything else (never runs code from the entry: numpy refuses pickled members)."""
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
    collecting = gc.isenabled()
    gc.disable()  # ~60,000 new objects, none in a cycle: the collector's passes over them cost a third
    try:
        return _decoder(head.get("classes"), members)(_tree_reader().decode(tree.tobytes()))
    except msgspec.DecodeError as exc:  # not MessagePack, a map or bytes, nested too deep
        raise EntryError(f"a malformed tree ({str(exc)[:80]})") from None
    except RecursionError:
        raise EntryError("nested too deep") from None
    except (TypeError, ValueError, IndexError, ArithmeticError) as exc:  # a malformed node, a value its class
        # refuses, an unhashable key, a number its numpy type cannot hold
        if isinstance(exc, EntryError):
            raise
        raise EntryError(f"a malformed tree ({type(exc).__name__})") from None
    finally:
        if collecting:
            gc.enable()


def encoded(value: Any, key: str) -> bytes:
    """``encode`` into bytes (tests compare two encodings)."""
    out = io.BytesIO()
    encode(value, key, out)
    return out.getvalue()
