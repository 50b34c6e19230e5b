"""The one NaN -> null rule of every --json output (present/json_view.py)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from msgperf.analysis.result import analyze
from msgperf.present.json_view import advice_dict, dumps, plain
from tests.factories import every_family_run


@dataclass(frozen=True)
class _Values:
    ratio: float
    interval: tuple[float, float] | None
    count: int


def test_every_number_that_does_not_exist_is_null_wherever_it_sits():
    tree = {"nan": math.nan, "inf": -math.inf, "numpy": np.float64("nan"), "n": np.int64(3),
            "pair": (1.5, math.inf), "nested": [_Values(math.nan, (0.5, np.float32(2.0)), 4)], "flag": True}
    assert json.loads(dumps(tree)) == {"nan": None, "inf": None, "numpy": None, "n": 3, "pair": [1.5, None],
                                       "nested": [{"ratio": None, "interval": [0.5, 2.0], "count": 4}],
                                       "flag": True}
    assert "NaN" not in dumps(tree) and "Infinity" not in dumps(tree)
    assert plain(np.float64(2.5)) == 2.5 and type(plain(np.int64(2))) is int


@pytest.fixture(scope="module")
def result():
    return analyze(every_family_run())


def test_advise_json_carries_the_buffering_the_analysis_made(result):
    """advise's buffering estimate is a field of the prediction (RunResult.advise), copy speed from
    the run's memcpy when none is given; the JSON says where b_c and b_n come from."""
    advice = result.advise(8, 1024)
    b = advice.buffering
    assert b is not None and b.copy_from.startswith("memcpy at ") and b.bytes == 8 * 1024
    assert b.unbuffered_s == advice.combined_s and b.buffered_s > b.unbuffered_s
    out = json.loads(dumps(advice_dict(advice, result.main, "r.jsonl", "")))
    assert out["buffering"]["slowdown"] == pytest.approx(b.slowdown)
    assert out["copy_bandwidth_from"] == b.copy_from and out["model_conditions"] is None
    given = result.advise(8, 1024, copy_bandwidth=5e9).buffering
    assert given.copy_bandwidth_bytes_per_s == 5e9 and given.copy_from == "--copy-bandwidth"


def test_json_text_is_ascii_with_json_escapes_and_reads_back_the_same():
    import json

    from msgperf.present.json_view import dumps

    value = {"unit": "µs × — ≤ 😀", "figures": [1.5e-06, float("nan"), 2**70, None], "lone": "a \udc80"}
    text = dumps(value)
    assert text.isascii() and "\\u00b5s \\u00d7" in text and "\\ud83d\\ude00" in text
    assert json.loads(text) == {**value, "figures": [1.5e-06, None, 2**70, None]}
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        dumps({"a": {1, 2}})  # as json.dumps: a set is no JSON value
