"""The analysis cache's entry format (msgperf/plain_data.py) holds a run and its analysis as plain
data, gives them back equal, and refuses anything else without running it."""

from __future__ import annotations

import dataclasses
import enum
import io
import json
import math
import pickle
import typing

import msgspec
import numpy as np
import pytest

from msgperf import plain_data
from msgperf.analysis.result import RunResult, analyze
from msgperf.records.format import Run
from tests.factories import pingpong_run, rich_run


@pytest.fixture(scope="module")
def value():
    run = rich_run(1)
    return run, ("note: a cut-off last line",), analyze(run)


def decode(data: bytes, key: str = "k"):
    return plain_data.decode(io.BytesIO(data), key)


def entry(header: dict, **arrays) -> bytes:
    """An .npz entry with this header and the tree ``header["tree"]`` (an attacker's, or a corrupted one)."""
    out = io.BytesIO()
    header = dict(header)
    # packed as is: the writer's own checks (plain_data._packed) would refuse the forged trees below
    tree = np.frombuffer(msgspec.msgpack.encode(header.pop("tree")), dtype=np.uint8) if "tree" in header else None
    np.savez(out, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
             **({} if tree is None else {"tree": tree}), **arrays)
    return out.getvalue()


def nested(depth: int) -> list:
    tree: list = ["t"]
    for _ in range(depth - 1):
        tree = ["t", tree]
    return tree


def test_a_well_formed_entry_of_this_helper_is_read():
    """The refusals below fail for the reason each one names, not because the helper writes no entry."""
    assert decode(entry({**GOOD, "classes": [], "tree": ["t", 1, ["l", 2.5, None]]})) == (1, [2.5, None])
    assert decode(entry({**GOOD, "classes": [], "tree": nested(plain_data.MAX_DEPTH)})) is not None


def test_a_run_and_its_analysis_come_back_equal(value):
    data = plain_data.encoded(value, "k")
    back = decode(data)
    # equal down to every type (tuple or list, numpy scalar or float) and every array's bits
    assert plain_data.encoded(back, "k") == data
    run, notes, result = back
    assert isinstance(run, Run) and isinstance(result, RunResult) and notes == value[1]
    assert [m.samples_s.tobytes() for m in run.measurements] == [m.samples_s.tobytes() for m in value[0].measurements]
    assert result.saphir == value[2].saphir


def test_two_launches_nan_and_infinities_come_back_equal():
    run = pingpong_run(2, launches=2)
    value = (run, (), analyze(run), [float("nan"), float("inf"), -0.0], {(1, "a"): np.float64(2.5)})
    back = decode(plain_data.encoded(value, "k"))
    assert plain_data.encoded(back, "k") == plain_data.encoded(value, "k")
    assert np.isnan(back[3][0]) and back[3][1] == float("inf") and type(back[4][(1, "a")]) is np.float64
    assert math.copysign(1.0, back[3][2]) == -1.0  # -0.0 keeps its sign


def _reached(roots) -> set[str]:
    """Every dataclass (and enum) the type hints of ``roots`` reach."""
    seen: set[type] = set()
    todo = list(roots)
    while todo:
        t = todo.pop()
        if isinstance(t, type) and (dataclasses.is_dataclass(t) or issubclass(t, enum.Enum)):
            if t not in seen:
                seen.add(t)
                if dataclasses.is_dataclass(t):
                    todo.extend(typing.get_type_hints(t).values())
            continue
        todo.extend(typing.get_args(t))
    return {plain_data.class_name(t) for t in seen}


def test_the_allow_list_is_what_a_run_and_its_result_are_made_of():
    assert plain_data.ALLOWED == _reached([Run, RunResult])


class Planted:
    """What a pickle runs when it is loaded: here, it would record that it ran."""

    ran: list[str] = []

    def __reduce__(self):
        return (Planted.ran.append, ("code ran",))


def test_a_pickle_is_refused_unread():
    with pytest.raises(plain_data.EntryError):
        decode(pickle.dumps(Planted()))
    out = io.BytesIO()  # a pickled member inside an .npz: numpy refuses to unpickle it
    np.savez(out, header=np.array([Planted()], dtype=object))
    with pytest.raises(plain_data.EntryError):
        decode(out.getvalue())
    assert Planted.ran == []


GOOD = {"format": plain_data.FORMAT, "version": plain_data.VERSION, "key": "k"}


@pytest.mark.parametrize("header, arrays", [
    ({**GOOD, "classes": [["os:system", []]], "tree": ["c", 0]}, {}),  # not a result class
    ({**GOOD, "classes": [["msgperf.store.db:Store", ["conn", "path"]]], "tree": ["c", 0, 1, 2]}, {}),
    ({**GOOD, "classes": [["msgperf.analysis.samples.drift:Drift", ["x"]]], "tree": ["c", 0, 1]}, {}),  # not its fields
    ({**GOOD, "classes": [], "tree": [0]}, {}),  # a class index out of range
    ({**GOOD, "classes": [], "tree": ["x", 1]}, {}),  # an unknown tag
    ({**GOOD, "classes": [], "tree": {"a": 1}}, {}),  # a map
    ({**GOOD, "classes": [], "tree": ["t", {"a": 1}]}, {}),  # a map inside
    ({**GOOD, "classes": [], "tree": ["t", b"\x80\x04"]}, {}),  # bytes (a pickle's opening)
    ({**GOOD, "classes": [], "tree": nested(plain_data.MAX_DEPTH + 1)}, {}),  # nested too deep
    ({**GOOD, "classes": []}, {}),  # no tree
    ({**GOOD, "classes": [], "tree": ["a", "<f8", 2, [4]]}, {"<f8": np.zeros(3)}),  # outside its data
    ({**GOOD, "classes": [], "tree": ["a", "<U3", 0, [1]]}, {"<U3": np.array(["abc"])}),  # not numbers
    ({**GOOD, "key": "another", "classes": [], "tree": "forged"}, {}),  # another key's entry
    ({"format": "other", "version": 1, "key": "k", "classes": [], "tree": 1}, {}),
    ({**GOOD, "version": 99, "classes": [], "tree": 1}, {}),
], ids=["os.system", "not-a-result-class", "wrong-fields", "class-index", "tag", "map", "map-inside", "bytes",
        "too-deep", "no-tree", "bounds", "dtype",
        "foreign-key", "format", "version"])
def test_an_entry_not_written_for_this_key_by_this_code_is_refused(header, arrays):
    with pytest.raises(plain_data.EntryError):
        decode(entry(header, **arrays))


def test_truncated_or_garbled_bytes_are_refused(value):
    data = plain_data.encoded(value, "k")
    garbled = data.replace(b"\xa1t", b"\xa1\xff", 1)  # the tag "t" changed: the zip's checksum refuses it
    assert garbled != data
    for bad in (b"", b"not an entry", data[: len(data) // 2], data[:100], garbled):
        with pytest.raises(plain_data.EntryError):
            decode(bad)


def test_what_the_format_cannot_hold_is_not_written():
    class Other:
        pass

    deep: list = []
    for _ in range(plain_data.MAX_DEPTH):
        deep = [deep]
    for bad in (Other(), np.array([object()]), {1: enum.Enum("E", "a").a}, 2**64, [-(2**63) - 1], deep):
        with pytest.raises(plain_data.Unkeepable):
            plain_data.encoded(bad, "k")
    assert decode(plain_data.encoded([2**64 - 1, -(2**63)], "k")) == [2**64 - 1, -(2**63)]  # 64 bits are kept


def test_a_tree_that_is_not_messagepack_of_scalars_and_lists_is_refused():
    """The tree member itself broken (the zip's checksum right): a string that is not UTF-8, a cut-off
    list, bytes after the value."""
    for raw in (b"\x92\xa1t\xa1\xff", b"\x93\xa1t\x01", b"\x91\xa1t\x00"):
        out = io.BytesIO()
        header = plain_data._json({**GOOD, "classes": []})
        np.savez(out, header=header, tree=np.frombuffer(raw, dtype=np.uint8))
        with pytest.raises(plain_data.EntryError, match="malformed tree"):
            decode(out.getvalue())


def test_what_one_object_is_in_two_places_stays_one_object(value):
    """The report compares series by identity (``s is main``): a copy would drop its sections."""
    series, samples = value[2].series[0], value[0].measurements[0].samples_s
    back = decode(plain_data.encoded((series, series, samples, samples, [series]), "k"))
    assert back[0] is back[1] is back[4][0] and back[2] is back[3]
    with pytest.raises(plain_data.EntryError):
        decode(entry({**GOOD, "classes": [], "tree": ["t", ["r", 0]]}))  # a reference to nothing


def test_a_number_its_numpy_type_cannot_hold_is_refused_not_raised():
    """["n", "|i1", 1000] is well formed but 1000 is no int8: OverflowError reached show as a traceback."""
    out = io.BytesIO()
    header = plain_data._json({"format": plain_data.FORMAT, "version": plain_data.VERSION, "key": "k", "classes": []})
    np.savez(out, header=header, tree=plain_data._packed(["n", "|i1", 1000]))
    out.seek(0)
    with pytest.raises(plain_data.EntryError):
        plain_data.decode(out, "k")
