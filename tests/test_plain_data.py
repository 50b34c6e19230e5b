"""The analysis cache's entry format (msgperf/plain_data.py) holds a run and its analysis as plain
data, gives them back equal, and refuses anything else without running it."""

from __future__ import annotations

import io
import json
import pickle

import msgspec
import numpy as np
import pytest

from msgperf import plain_data
from msgperf.analysis.result import RunResult, analyze
from msgperf.analysis.samples.drift import Drift
from msgperf.records.format import Run
from tests.factories import pingpong_run, rich_run

ENTRY = tuple[Run, tuple[str, ...], RunResult]


@pytest.fixture(scope="module")
def value():
    run = rich_run(1)
    return run, ("note: a cut-off last line",), analyze(run)


def decode(data: bytes, key: str = "k", kind=ENTRY):
    return plain_data.decode(io.BytesIO(data), key, kind)


def encoded(value, key: str = "k", kind=ENTRY) -> bytes:
    return plain_data.encoded(value, key, kind)


def entry(header: dict, **arrays) -> bytes:
    """An .npz entry with this header and the tree ``header["tree"]`` (an attacker's, or a corrupted one)."""
    out = io.BytesIO()
    header = dict(header)
    tree = np.frombuffer(msgspec.msgpack.encode(header.pop("tree")), dtype=np.uint8) if "tree" in header else None
    np.savez(out, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
             **({} if tree is None else {"tree": tree}), **arrays)
    return out.getvalue()


GOOD = {"format": plain_data.FORMAT, "version": plain_data.VERSION, "key": "k"}
DRIFT = {"tested": True, "warmup": False, "trend": False, "warmup_shift": 0.0, "trend_shift": 0.0,
         "block_medians": [1.0, 1.0], "rule": "r"}


def test_a_well_formed_entry_of_this_helper_is_read():
    """The refusals below fail for the reason each one names, not because the helper writes no entry."""
    assert list(DRIFT) == [f.name for f in msgspec.structs.fields(Drift)]
    assert decode(entry({**GOOD, "tree": list(DRIFT.values())}), kind=Drift) == Drift(True, False, False, 0.0, 0.0,
                                                                                      (1.0, 1.0), "r")


def test_a_run_and_its_analysis_come_back_equal(value):
    data = encoded(value)
    back = decode(data)
    # equal down to every field and every array's bits: written again, the same bytes
    assert encoded(back) == data
    run, notes, result = back
    assert isinstance(run, Run) and isinstance(result, RunResult) and notes == value[1]
    assert [m.samples_s.tobytes() for m in run.measurements] == [m.samples_s.tobytes() for m in value[0].measurements]
    assert result.saphir == value[2].saphir and result.answer == value[2].answer
    assert result.main.key == value[2].main.key  # the main series: equal to one of the series, not the same object


def test_two_launches_nan_and_infinities_come_back_equal():
    run = pingpong_run(2, launches=2)
    value = (run, (), analyze(run))
    back = decode(encoded(value))
    assert encoded(back) == encoded(value)
    kind = tuple[float, float, float, dict[int, float]]
    nan, inf, zero, numbers = decode(encoded((float("nan"), float("inf"), -0.0, {1: np.float64(2.5)}), kind=kind),
                                     kind=kind)
    assert np.isnan(nan) and inf == float("inf") and np.copysign(1.0, zero) == -1.0  # -0.0 keeps its sign
    assert numbers == {1: 2.5}  # a numpy scalar comes back as the number it holds


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


@pytest.mark.parametrize("header, arrays", [
    ({**GOOD, "tree": list({**DRIFT, "warmup": "yes"}.values())}, {}),  # a field's type
    ({**GOOD, "tree": [True, False]}, {}),  # fields missing
    ({**GOOD, "tree": DRIFT}, {}),  # a map (field names) for the list of values
    ({**GOOD, "tree": b"\x80\x04"}, {}),  # bytes (a pickle's opening)
    ({**GOOD}, {}),  # no tree
    ({**GOOD, "key": "another", "tree": list(DRIFT.values())}, {}),  # another key's entry
    ({"format": "other", "version": 1, "key": "k", "tree": list(DRIFT.values())}, {}),
    ({**GOOD, "version": 2, "tree": list(DRIFT.values())}, {}),  # the format before this one
], ids=["field-type", "missing-fields", "map", "bytes", "no-tree", "foreign-key", "format", "version"])
def test_an_entry_not_written_for_this_key_by_this_code_is_refused(header, arrays):
    with pytest.raises(plain_data.EntryError):
        decode(entry(header, **arrays), kind=Drift)


def test_a_class_named_in_an_entry_is_not_built():
    """Only the declared type is built: an entry naming a class to build is not that type's list of
    values, and values past the type's own fields are refused too."""
    for tree in ({"__class__": "os:system", "__reduce__": "os.system"}, ["os:system", *DRIFT.values()],
                 [*DRIFT.values(), "os:system"]):
        with pytest.raises(plain_data.EntryError):
            decode(entry({**GOOD, "tree": tree}), kind=Drift)


@pytest.mark.parametrize("tree, arrays", [
    (["<f8", 2, [4]], {"<f8": np.zeros(3)}),  # outside its data
    (["<f8", 0, [-1]], {"<f8": np.zeros(3)}),  # a negative shape
    (["<i8", 0, [1]], {"<f8": np.zeros(3)}),  # no such member
    (["<f8", 0], {"<f8": np.zeros(3)}),  # malformed
    (["<U3", 0, [1]], {"<U3": np.array(["abc"])}),  # not numbers
], ids=["bounds", "negative", "no-member", "malformed", "dtype"])
def test_an_array_outside_its_data_is_refused(tree, arrays):
    with pytest.raises(plain_data.EntryError):
        decode(entry({**GOOD, "tree": tree}, **arrays), kind=np.ndarray)


def test_an_array_inside_its_data_is_read():
    back = decode(entry({**GOOD, "tree": ["<f8", 1, [2]]}, **{"<f8": np.arange(4.0)}), kind=np.ndarray)
    assert back.tolist() == [1.0, 2.0]


def test_truncated_or_garbled_bytes_are_refused(value):
    data = encoded(value)
    for bad in (b"", b"not an entry", data[: len(data) // 2], data[:100]):
        with pytest.raises(plain_data.EntryError):
            decode(bad)


def test_what_the_format_cannot_hold_is_not_written():
    class Other:
        pass

    for bad, kind in ((Other(), object), (np.array([object()]), np.ndarray), (2**64, int), ([-(2**63) - 1], list[int]),
                      ("a string", Drift)):
        with pytest.raises(plain_data.Unkeepable):
            encoded(bad, kind=kind)
    assert decode(encoded([2**64 - 1, -(2**63)], kind=list[int]), kind=list[int]) == [2**64 - 1, -(2**63)]  # 64 bits


def test_a_tree_that_is_not_messagepack_is_refused():
    """The tree member itself broken (the zip's checksum right): a cut-off map, bytes after the value."""
    for raw in (b"\x87\xa6tested", b"\x91\x01\x00", b"\xc1"):
        out = io.BytesIO()
        np.savez(out, header=plain_data._json(GOOD), tree=np.frombuffer(raw, dtype=np.uint8))
        with pytest.raises(plain_data.EntryError):
            decode(out.getvalue(), kind=Drift)


def test_one_array_in_two_places_is_kept_once(value):
    samples = value[0].measurements[0].samples_s
    kind = tuple[np.ndarray, np.ndarray]
    once = encoded((samples, samples), kind=kind)
    assert len(once) < len(encoded((samples, samples.copy()), kind=kind))
    a, b = decode(once, kind=kind)
    assert a.tobytes() == b.tobytes() == samples.tobytes()


def test_a_run_with_collectives_comes_back_equal():
    """The collectives' fits (their predictions, verdicts, size ranges) are kept too: written again,
    the same bytes."""
    from tests.analysis.collectives.test_naming import run_of

    run = run_of("recursive_doubling")
    value = (run, (), analyze(run))
    assert value[2].collectives is not None and value[2].collectives.fits
    data = encoded(value)
    back = decode(data)
    assert encoded(back) == data and back[2].collectives == value[2].collectives


def test_a_value_its_type_hint_does_not_describe_is_not_kept():
    """An int in a field typed float would come back a float (a warm output unlike the cold one):
    the entry is not written. A value that fits its hints is."""

    class Loose(msgspec.Struct, array_like=True):
        x: float

    with pytest.raises(plain_data.Unkeepable, match="does not come back the same"):
        encoded(Loose(1), kind=Loose)
    assert decode(encoded(Loose(1.0), kind=Loose), kind=Loose) == Loose(1.0)


def test_an_extension_in_an_untyped_field_and_a_type_msgspec_cannot_read_are_refused():
    with pytest.raises(plain_data.EntryError, match="extension"):
        decode(entry({**GOOD, "tree": {"a": msgspec.msgpack.Ext(5, b"x")}}), kind=dict)

    class Unreadable(msgspec.Struct):
        x: "NoSuchType"  # noqa: F821 - the point: a hint msgspec cannot resolve

    with pytest.raises(plain_data.EntryError, match="cannot decode"):
        decode(entry({**GOOD, "tree": [1]}), kind=Unreadable)
