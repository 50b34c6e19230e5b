"""The break-even search of message combining scans its grid of sizes as arrays; every gain
must be the one the scalar model gives, bit for bit (the break-even size is then the same)."""

import numpy as np
import pytest

from msgperf.analysis.combining import _GRID, Gap, _grid_gains, apart_time, model_break_even
from msgperf.analysis.piecewise import fit_piecewise

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
