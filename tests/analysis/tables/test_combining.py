"""The break-even search of message combining scans its grid of sizes as arrays; every gain
must be the one the scalar model gives, bit for bit (the break-even size is then the same)."""

import numpy as np
import pytest

from msgperf.analysis.tables.combining import _GRID, Gap, _grid_gains, apart_time, model_break_even
from msgperf.analysis.model.piecewise import fit_piecewise

from tests.factories import SIZES, broken, line, points


def _scalar_gains(model, messages, gap):
    def gain(s):
        combined = model.predict(messages * s)
        return apart_time(model, messages, s, gap) / combined - 1 if combined > 0 else np.inf
    return np.array([gain(s) for s in _GRID])


CURVES = {
    "line": line(2e-6, 1e-10),
    "jump": broken(1e-6, 2e-10, 8e-6, 1e-10, 65536),
    "two jumps": lambda b: broken(1e-6, 2e-10, 8e-6, 1e-10, 65536)(b) + (2e-5 if b >= 1 << 22 else 0.0),
    "tiny alpha": line(1e-9, 1e-9),
}
GAPS = {"apart": None, "gap": Gap(3e-7, 5e-11), "negative gap": Gap(-1e-6, 1e-12), "zero gap": Gap(0.0, 0.0)}


@pytest.mark.parametrize("curve", sorted(CURVES))
@pytest.mark.parametrize("gap", sorted(GAPS))
@pytest.mark.parametrize("messages", [1, 2, 7, 1000, 2 ** 40 + 3])
def test_grid_gains_are_the_scalar_gains(curve, gap, messages):
    model = fit_piecewise(points(CURVES[curve], SIZES, 0.002, np.random.default_rng(3)))
    expected = _scalar_gains(model, messages, GAPS[gap])
    got = _grid_gains(model, messages, GAPS[gap])
    assert got.shape == expected.shape
    assert np.array_equal(got, expected, equal_nan=True)


def test_the_break_even_beyond_a_jump_follows_the_last_segment():
    """Above the 64 KiB jump the model is alpha2 + beta2·s: combining k messages stops paying at
    s* = alpha2·(k - 1 - g) / (g·k·beta2), found through the grid scan and the bisection."""
    model = fit_piecewise(points(CURVES["jump"], SIZES, 0.0, np.random.default_rng(0)))
    assert len(model.breakpoints) == 1
    k, g = 8, 0.10
    assert model_break_even(model, k, g) == pytest.approx(8e-6 * (k - 1 - g) / (g * k * 1e-10), rel=1e-6)


def _advice(curve, messages, size, sizes=SIZES):
    from msgperf.analysis.tables.combining import predict_combining
    from msgperf.analysis.model.sweep import analyze_sweep

    sweep = analyze_sweep(points(curve, sizes, 0.0, np.random.default_rng(0)))
    return predict_combining(sweep.piecewise, sweep.hockney.line, messages, size)


def test_where_combining_pays_is_said_in_ranges_when_a_switch_breaks_it_and_only_within_the_evidence():
    """Audit of issue 14: advise said "gains more than 10 % at every size up to 1 TiB" beside a
    predicted 0.8x at 4 KiB, whose combined message crossed the eager limit. With a 7 µs jump at
    64 KiB, two messages of s from ~22 to ~38 KiB combine into one above the jump and gain less than
    10 %; below and above that they gain, until the last segment's break-even (~360 KiB): two
    ranges, none reaching past the largest size measured over k."""
    from msgperf.present.advice_text import paying_words

    p = _advice(CURVES["jump"], 2, 40000)
    assert len(p.paying_bytes) == 2, p.paying_bytes
    (lo1, hi1), (lo2, hi2) = p.paying_bytes
    assert lo1 <= 1 and 16384 < hi1 < 32768 < lo2 <= 65536
    assert not any(lo <= 30000 <= hi for lo, hi in p.paying_bytes)
    assert hi2 == pytest.approx(p.break_even_bytes, rel=1e-9) and hi2 <= p.within_bytes == (1 << 26) / 2
    assert not p.pays_to_within
    words = paying_words(p)
    assert "for s in 1 B–22 KiB, 37.1 KiB–352 KiB, of s up to 32 MiB" in words and "1 TiB" not in words, words


def test_a_k_beyond_every_measured_size_says_nothing_about_where_combining_pays():
    """Review: with k·1 B past the largest size measured, no range is evidence of "never"."""
    from msgperf.present.advice_text import paying_words

    p = _advice(CURVES["line"], 1 << 30, 1)
    assert p.within_bytes < 1 and p.paying_bytes == ()
    assert paying_words(p).startswith("where combining 1073741824 messages pays is not predicted")


def test_a_gain_that_only_falls_stops_paying_at_the_break_even_and_one_that_never_falls_pays_everywhere():
    from msgperf.present.advice_text import paying_words

    falling = _advice(CURVES["line"], 8, 1024)  # s* = alpha(k - 1 - g)/(g·k·beta), about 170 KiB
    assert len(falling.paying_bytes) == 1 and falling.paying_bytes[0][0] <= 1
    assert "stops paying (gain < 10 %) above" in paying_words(falling)
    short = _advice(CURVES["line"], 8, 64, sizes=tuple(1 << i for i in range(11)))  # up to 1 KiB: s <= 128 B
    assert paying_words(short).startswith("combining 8 messages gains more than 10 % at every s up to 128 B")
    assert paying_words(_advice(CURVES["line"], 1, 64)).startswith("combining 1 message never gains 10 %")
