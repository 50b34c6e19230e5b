"""Property-based tests over random Hockney parameters (hypothesis).

Derandomised: each property sees the same examples on every run, because a statistical
procedure has a (small, stated) error rate and a test suite must not flicker. Per-size
uncertainty is kept at or below half the 1 % model tolerance, the regime where the
procedure promises no false breakpoint.
"""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msgperf.analysis import estimate_buffering, predict_combining
from msgperf.analysis.tables.buffering import effective_bandwidth
from msgperf.analysis.model.hockney import fit_hockney
from msgperf.analysis.model.piecewise import fit_piecewise

from tests.factories import SIZES, broken, line, points

FIT = settings(max_examples=25, deadline=3000, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow])
log_alpha = st.floats(-7, -4)  # alpha from 100 ns to 100 us
log_bandwidth = st.floats(8, 10.5)  # 100 MB/s .. 30 GB/s
rel_sd = st.floats(0, 0.005)
seeds = st.integers(0, 2**32 - 1)


@FIT
@given(log_alpha, log_bandwidth, rel_sd, seeds)
def test_straight_line_recovered_without_breakpoints(la, lb, u, seed):
    alpha, beta = 10 ** la, 10 ** -lb
    pts = points(line(alpha, beta), SIZES, u, np.random.default_rng(seed))
    h = fit_hockney(pts)
    # 5 standard errors of one size's time (the fit pools several sizes), floor for u = 0
    tol = 5 * u + 1e-6
    assert math.isclose(h.alpha_s, alpha, rel_tol=tol)
    assert math.isclose(h.beta_s_per_byte, beta, rel_tol=tol)
    assert fit_piecewise(pts).breakpoints == ()


@FIT
@given(log_alpha, log_bandwidth, rel_sd, seeds, st.floats(3, 22), st.floats(0.3, 1.0))
def test_jump_found_and_interval_contains_it(la, lb, u, seed, log2_switch, jump):
    alpha, beta, switch = 10 ** la, 10 ** -lb, 2 ** log2_switch
    after = alpha + jump * (alpha + beta * switch)  # times jump by `jump` at the switch
    pts = points(broken(alpha, beta, after, beta, switch), SIZES, u, np.random.default_rng(seed))
    pw = fit_piecewise(pts)
    assert len(pw.breakpoints) == 1
    assert pw.breakpoints[0].low_bytes < switch <= pw.breakpoints[0].high_bytes


@FIT
@given(log_alpha, log_bandwidth, rel_sd, seeds, st.floats(0, 1), st.floats(2, 5))
def test_slope_change_found_and_interval_contains_it(la, lb, u, seed, where, factor):
    alpha, beta = 10 ** la, 10 ** -lb
    # a change of slope shows only where beta·b matters: from 4·n_half to 4 MiB
    lo = max(3.0, math.log2(4 * alpha / beta))
    switch = 2 ** (lo + where * (22 - lo)) if lo < 22 else 2 ** 22
    beta2 = factor * beta
    curve = broken(alpha, beta, alpha + (beta - beta2) * switch, beta2, switch)  # continuous
    pw = fit_piecewise(points(curve, SIZES, u, np.random.default_rng(seed)))
    assert len(pw.breakpoints) == 1
    assert pw.breakpoints[0].low_bytes < switch <= pw.breakpoints[0].high_bytes


@settings(max_examples=40, deadline=3000, derandomize=True)
@given(log_alpha, log_bandwidth, st.integers(1, 1000), st.integers(0, 1 << 24))
def test_combining_matches_the_hockney_formulas(la, lb, k, s):
    alpha, beta = 10 ** la, 10 ** -lb
    pts = points(line(alpha, beta), SIZES, 0.0, np.random.default_rng(0))
    h = fit_hockney(pts)
    p = predict_combining(fit_piecewise(pts), h.line, k, s)
    assert math.isclose(p.apart_s, k * (alpha + beta * s), rel_tol=1e-6)
    assert math.isclose(p.combined_s, alpha + beta * k * s, rel_tol=1e-6)
    assert math.isclose(p.speedup, k * (alpha + beta * s) / (alpha + beta * k * s), rel_tol=1e-6)
    assert p.speedup >= 1 - 1e-9
    if k - 1 > p.min_gain:  # s* = alpha(k - 1 - g) / (g k beta)
        expected = alpha * (k - 1 - p.min_gain) / (p.min_gain * k * beta)
        assert math.isclose(p.line_break_even_bytes, expected, rel_tol=1e-6)
        if expected * k < 2**40:
            assert math.isclose(p.break_even_bytes, expected, rel_tol=1e-4)
    else:
        assert p.break_even_bytes == 0.0 and p.line_break_even_bytes == 0.0


@settings(max_examples=50, deadline=None, derandomize=True)
@given(st.floats(1e3, 1e12), st.floats(1e3, 1e12), st.integers(0, 1 << 30))
def test_buffered_bandwidth_is_the_harmonic_combination(copy, network, size):
    b_e = effective_bandwidth(copy, network)
    assert b_e <= min(copy, network) * (1 + 1e-12)
    assert math.isclose(1 / b_e, 1 / copy + 1 / network, rel_tol=1e-9)
    est = estimate_buffering(copy, network, size)
    assert math.isclose(est.slowdown, 1 + network / copy, rel_tol=1e-9)
    assert math.isclose(est.buffered_s, size / b_e, rel_tol=1e-9, abs_tol=1e-300)
