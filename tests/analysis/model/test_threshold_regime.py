"""Consecutive sizes off the model between two of the MPI's thresholds are a regime with its own
segment, not a row of spikes (issue 27 item 3, analysis/threshold_regime.py). The curve: eager up
to 8112 B, rendezvous through cells up to a single-copy threshold at 65536 B (a dearer line), then
single copy; the fit given has one breakpoint (as a fit on a loaded machine can keep), which leaves
32 KiB and 48 KiB off it."""

from __future__ import annotations

import numpy as np

from msgperf.analysis.model.anomalies import find_anomalies
from msgperf.analysis.model.piecewise import Breakpoint, fit_piecewise, relocated
from msgperf.analysis.model.points import SizePoint
from msgperf.analysis.model.threshold_regime import Narrow, regime_between

SIZES = sorted([2 ** k for k in range(6, 23)] + [3 * 2 ** k for k in range(5, 21)])


def _time(b: int) -> float:
    if b <= 8112:
        return 1e-6 + b / 1e10
    if b <= 65535:
        return 2.5e-6 + b / 0.5e10
    return 4e-6 + b / 1e10


def _points(regime=_time, sizes=SIZES, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    for b in sizes:
        v = regime(b) * (1 + rng.normal(0, 0.003))
        out.append(SizePoint(b, v, v * 0.995, v * 1.005, 100, 1, 0.003))
    return out


def test_sizes_off_the_model_between_two_thresholds_get_a_segment_of_their_own():
    pts = _points()
    fit = fit_piecewise(pts, max_breaks=1)
    assert [a.bytes for a in find_anomalies(pts, fit)] == [32768, 49152]  # a row of spikes
    new, made, narrow = regime_between(fit, pts, [8112, 65535])
    assert made == ((8112, 65535),) and narrow == ()
    assert [(b.low_bytes, b.high_bytes) for b in new.breakpoints] == [(6144, 8192), (49152, 65536)]
    assert len(new.segments) == 3 and find_anomalies(pts, new) == ()


def test_without_a_threshold_on_each_side_the_sizes_stay_anomalies():
    pts = _points()
    fit = fit_piecewise(pts, max_breaks=1)
    assert regime_between(fit, pts, [8112]) == (fit, (), ())
    # thresholds around a longer stretch: one segment from 8 KiB to 1 MiB does not fit the run either
    assert regime_between(fit, pts, [8112, 1 << 20])[1] == ()


def test_one_size_off_alone_stays_a_spike():
    spiked = lambda b: 1e-6 + b / 1e10 + (3e-6 if b == 32768 else 0.0)  # noqa: E731
    pts = _points(spiked)
    fit = fit_piecewise(pts)
    assert 32768 in {a.bytes for a in find_anomalies(pts, fit)}
    assert regime_between(fit, pts, [8112, 65535]) == (fit, (), ())


def _narrow_time(b: int) -> float:
    """MPICH's default: eager up to 8112 B, rendezvous through cells up to 8191 B (dearer, and
    dearer with size), single copy from 8192 B."""
    if b <= 8112:
        return 1e-6 + b / 1e10
    if b <= 8191:
        return 3e-6 + (b - 8113) * 1.5e-8
    return 2e-6 + b / 1e10


def _narrow_points(sizes) -> list[SizePoint]:
    return _points(_narrow_time, sizes, seed=5)


def test_a_regime_too_narrow_for_a_line_is_one_switch_across_it_not_spikes():
    """Two sizes measured between the eager limit (8112 B) and the single-copy threshold (8192 B),
    and a breakpoint the model put between them (as a refinement launch located one at (8113,
    8189] in a default MPICH run): one breakpoint across the regime replaces it, the regime's
    sizes are left out of the lines and said (``Narrow``), and no size is an anomaly."""
    sizes = sorted({*SIZES, 7000, 7500, 7800, 8000, 8112, 8113, 8189, 8300, 8600, 9000})
    pts = _narrow_points(sizes)
    fit = fit_piecewise(pts, max_breaks=1)
    inner = relocated(fit, pts, pts, [Breakpoint(8113, 8189, 8113, 8189, 0.95)])
    assert inner is not None and {8113, 8189} <= {a.bytes for a in find_anomalies(pts, inner)}
    new, made, narrow = regime_between(inner, pts, [8112, 8191])
    assert made == () and narrow == (Narrow(8112, 8191, (8113, 8189)),)
    assert [(b.low_bytes, b.high_bytes) for b in new.breakpoints] == [(8112, 8192)]
    assert {8113, 8189} <= set(new.excluded_bytes)


def test_a_regime_whose_span_the_sides_refuse_is_not_said():
    """Review: a sweep that ends two sizes above 8192 B cannot keep a line beside a breakpoint across
    the regime; the fit stays as it was, and its sizes are not said to be a regime."""
    sizes = [64, 128, 256, 512, 1024, 2048, 4096, 6000, 7000, 7500, 8000, 8112, 8113, 8189, 8192, 8300]
    pts = _narrow_points(sizes)
    fit = fit_piecewise(pts, max_breaks=1)
    inner = relocated(fit, pts, pts, [Breakpoint(8113, 8189, 8113, 8189, 0.95)], included=list(fit.excluded_bytes))
    new, made, narrow = regime_between(inner, pts, [8112, 8191])
    assert (new, made, narrow) == (inner, (), ())
