"""The readers' JSON parser (msgperf/records/json_text.py): msgspec's speed, the standard library's
values and errors."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from msgperf.records.json_text import parse_json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


def same(a, b) -> bool:
    """Equal down to the bits of every float (0.0 and -0.0 apart) and the type of every value."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a.hex() == b.hex()
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


@given(JSON)
def test_the_values_are_the_standard_librarys_bit_for_bit(value):
    text = json.dumps(value)
    assert same(parse_json(text, "a run file"), json.loads(text))


@pytest.mark.parametrize("text", ['{"a": 1e400}', '{"a": -1e400}', '{"a": "x\\ud800y"}', '{"x\\udc00": 1}',
                                  '{"a": 1, "a": 2}', '[' + '1, ' * 3 + '123456789012345678901234567890]'])
def test_what_msgspec_refuses_or_reads_otherwise_is_read_as_the_standard_library_reads_it(text):
    """1e400 is inf and a lone surrogate a str to the standard library: the readers then refuse them naming
    the field (tests/records/test_fuzz_read.py); the last of two equal keys wins."""
    assert same(parse_json(text, "a run file"), json.loads(text))


@pytest.mark.parametrize("text, message", [('{"a": NaN}', "NaN is not allowed in a profile"),
                                           ('[Infinity]', "Infinity is not allowed in a profile"),
                                           ('{"a": 1', "Expecting")])
def test_not_json_or_nan_is_a_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_json(text, "a profile")


def test_nesting_too_deep_is_a_recursion_error():
    with pytest.raises(RecursionError):
        parse_json("[" * 100_000 + "]" * 100_000, "a run file")
    assert math.isfinite(parse_json("[[[1.5]]]", "a run file")[0][0][0])
