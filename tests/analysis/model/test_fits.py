"""The Hockney line, its intervals, the piecewise model and anomalies, on synthetic sweeps
with known parameters. Tolerances are stated where they are used."""

import math

import msgspec
import numpy as np
import pytest

from msgperf.analysis import analyze_pairs, analyze_sweep
from msgperf.analysis.model.hockney import fieller_interval, fit_hockney
from msgperf.analysis.model.piecewise import fit_piecewise
from msgperf.analysis.model.robust import fit_line
from tests.factories import SIZES, broken, line, pairs, points


def test_exact_line_is_recovered_exactly():
    pts = points(line(1.1e-6, 1.3e-10), SIZES, 0.0, np.random.default_rng(0))
    h = fit_hockney(pts)
    assert h.alpha_s == pytest.approx(1.1e-6, rel=1e-9)
    assert h.beta_s_per_byte == pytest.approx(1.3e-10, rel=1e-9)
    assert h.line.n_half_bytes == pytest.approx(1.1e-6 / 1.3e-10, rel=1e-9)
    assert h.line.bandwidth_bytes_per_s == pytest.approx(1 / 1.3e-10, rel=1e-9)
    assert h.rms_rel_residual < 1e-9 and h.r_squared == pytest.approx(1.0)
    assert fit_piecewise(pts).breakpoints == ()


# (alpha s, beta s/B, noise sigma, samples per size, heavy tail, gross outlier fraction)
RECOVERY = [
    (1.1e-6, 1.3e-10, 0.05, 400, False, 0.0),  # this machine's shared memory
    (5e-5, 8e-9, 0.20, 300, True, 0.01),  # gigabit Ethernet, heavy tail, 1 % gross spikes
    (2e-7, 5e-11, 0.02, 600, True, 0.01),  # a fast interconnect
    (1e-6, 1e-9, 0.10, 200, False, 0.01),
]


@pytest.mark.parametrize("alpha, beta, noise, n, heavy, gross", RECOVERY)
def test_recovery_from_samples(alpha, beta, noise, n, heavy, gross):
    # Tolerance: 5 standard errors of one size's median, 1.2533·sigma/sqrt(n) (the fit pools
    # a dozen sizes per parameter, so its own error is smaller), plus the shift the 1 % gross
    # spikes cause, which move the median to the 50.5th percentile: < 0.02·sigma.
    tol = 5 * 1.2533 * noise / math.sqrt(n) + 0.02 * noise
    b, t = pairs(line(alpha, beta), SIZES, n, noise, np.random.default_rng(1), heavy, gross)
    result = analyze_pairs(b, t)
    h = result.sweep.hockney
    assert h.alpha_s == pytest.approx(alpha, rel=tol)
    assert h.beta_s_per_byte == pytest.approx(beta, rel=tol)
    assert h.line.n_half_bytes == pytest.approx(alpha / beta, rel=2 * tol)
    lo, hi = h.line.alpha_ci_s
    assert lo < h.alpha_s < hi
    assert result.sweep.piecewise.breakpoints == ()  # a straight line has no breakpoint


def test_relative_weights_keep_large_sizes_from_swamping_small_ones():
    # Plain least squares on these times would be set by the 64 MiB point (ms) and miss the
    # 1 B latency (us) completely; relative weighting recovers it within 1 %.
    pts = points(line(1.1e-6, 1.3e-10), SIZES, 0.005, np.random.default_rng(2))
    x = np.array([p.bytes for p in pts], float)
    y = np.array([p.time_s for p in pts])
    ols_alpha = np.polyfit(x, y, 1)[1]
    assert abs(ols_alpha - 1.1e-6) / 1.1e-6 > 0.3
    assert fit_hockney(pts).alpha_s == pytest.approx(1.1e-6, rel=0.01)


def test_ci_coverage_is_about_95_percent():
    # Over 120 sweeps the 95 % intervals should contain the truth 95 % of the time; with
    # 120 trials, 88 % is 3.7 standard errors below.
    hits = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        alpha, bw = 10 ** rng.uniform(-7, -4), 10 ** rng.uniform(8, 10.5)
        lo, hi = fit_hockney(points(line(alpha, 1 / bw), SIZES, 0.01, rng)).line.alpha_ci_s
        hits += lo <= alpha <= hi
    assert hits / 120 >= 0.88


@pytest.mark.parametrize("a, b, vaa, vbb, vab, t, expected", [
    (4.0, 2.0, 0.0, 0.0, 0.0, 2.0, (2.0, 2.0)),  # exact: a/b
    # (4 - 2r)^2 <= 4·(1 + r²·0.25)  ->  3r² - 16r + 12 <= 0  ->  r in (16 ± sqrt(112)) / 6
    (4.0, 2.0, 1.0, 0.25, 0.0, 2.0, ((16 - math.sqrt(112)) / 6, (16 + math.sqrt(112)) / 6)),
    (4.0, 0.5, 1.0, 1.0, 0.0, 2.0, (-math.inf, math.inf)),  # b not distinct from 0: unbounded
])
def test_fieller_interval(a, b, vaa, vbb, vab, t, expected):
    assert fieller_interval(a, b, vaa, vbb, vab, t) == pytest.approx(expected)


def test_huber_fit_resists_one_wild_point():
    x = np.arange(10.0)
    y = 1 + 2 * x
    y[5] += 50
    r = fit_line(x, y, np.ones(10))
    assert (r.a, r.b) == (pytest.approx(1, abs=0.2), pytest.approx(2, abs=0.05))
    assert r.weights[5] < 0.1 and np.all(np.delete(r.weights, 5) == 1.0)


def test_two_sizes_fit_without_intervals():
    pts = points(line(1e-6, 1e-9), (0, 1024), 0.0, np.random.default_rng(0))
    sweep = analyze_sweep(pts)
    assert sweep.hockney.line.dof == 0
    assert sweep.hockney.line.alpha_ci_s == (-math.inf, math.inf)
    assert {c.kind for c in sweep.caveats} >= {"few_sizes"}


# ---- piecewise ------------------------------------------------------------------------------

# (curve, true switch in bytes, expected best gap)
BROKEN = [
    # eager -> rendezvous at 6000 B: a jump that only the 4-8 KiB gap explains
    (broken(1.1e-6, 5e-11, 3e-6, 1.3e-10, 6000), 6000, (4096, 8192)),
    # this machine's step (2.25 -> 3.4 us): 8 KiB lies on both lines, so the interval is wider
    (broken(1.1e-6, 2.8e-10, 2.3e-6, 1.3e-10, 6000), 6000, None),
    # a change of slope only (continuous at 128 KiB): bandwidth halves
    (broken(1e-6, 1e-10, 1e-6 - 1e-10 * 131072, 2e-10, 131072), 131072, None),
    # a network buffer between 1 and 2 MiB (Blaisdell's latency and bandwidth assignment)
    (broken(5e-5, 5e-9, 9e-4, 5e-9, 1.5 * 2**20), 1.5 * 2**20, (2**20, 2**21)),
]


@pytest.mark.parametrize("curve, switch, gap", BROKEN)
@pytest.mark.parametrize("seed", [0, 1])
def test_breakpoint_interval_contains_the_switch(curve, switch, gap, seed):
    pts = points(curve, SIZES, 0.01, np.random.default_rng(seed))
    pw = fit_piecewise(pts)
    assert len(pw.breakpoints) == 1
    bp = pw.breakpoints[0]
    assert bp.low_bytes < switch <= bp.high_bytes
    if gap:
        assert (bp.best_low_bytes, bp.best_high_bytes) == gap
    assert [s.from_bytes for s in pw.segments][1] == bp.best_high_bytes


def test_segments_recover_their_own_parameters():
    curve = broken(1.1e-6, 2.8e-10, 2.3e-6, 1.3e-10, 6000)
    b, t = pairs(curve, SIZES, 400, 0.05, np.random.default_rng(3), gross=0.01)
    pw = analyze_pairs(b, t).sweep.piecewise
    (s1, s2), tol = pw.segments, 0.05  # 5 %: 20 standard errors of a 400-sample median
    assert (s1.from_bytes, s1.to_bytes, s2.from_bytes, s2.to_bytes) == (0, 4096, 8192, 2**26)
    assert s1.alpha_s == pytest.approx(1.1e-6, rel=tol)
    assert s1.beta_s_per_byte == pytest.approx(2.8e-10, rel=0.2)  # few bytes: beta barely shows
    assert s2.alpha_s == pytest.approx(2.3e-6, rel=tol)
    assert s2.beta_s_per_byte == pytest.approx(1.3e-10, rel=tol)


def test_two_switches():
    def curve(b):
        return 1e-6 + 1e-10 * b if b < 5000 else (3e-6 + 1e-10 * b if b < 300000 else 6e-6 + 2e-10 * b)
    pw = fit_piecewise(points(curve, SIZES, 0.005, np.random.default_rng(4)))
    assert [(b.low_bytes < 5000 <= b.high_bytes) for b in pw.breakpoints[:1]] == [True]
    assert len(pw.breakpoints) == 2 and pw.breakpoints[1].low_bytes < 300000 <= pw.breakpoints[1].high_bytes


def test_spike_is_an_anomaly_not_a_breakpoint():
    # the Cisco blog 'Why MPI is Good for You' (2013): single sizes standing far off a smooth curve
    rng = np.random.default_rng(5)
    pts = points(line(2e-6, 1e-10), SIZES, 0.002, rng)
    spiky = [p.__class__(**{**msgspec.structs.asdict(p), "time_s": p.time_s * 3, "ci_low_s": p.ci_low_s * 3,
                            "ci_high_s": p.ci_high_s * 3}) if p.bytes == 131072 else p for p in pts]
    sweep = analyze_sweep(spiky)
    assert sweep.piecewise.breakpoints == ()
    assert [(a.bytes, a.kind) for a in sweep.anomalies] == [(131072, "spike")]
    assert sweep.anomalies[0].rel_deviation == pytest.approx(2.0, rel=0.05)
    assert any(c.kind == "anomalies" for c in sweep.caveats)


def test_no_anomaly_on_a_clean_line():
    for seed in range(10):
        assert analyze_sweep(points(line(1e-6, 2e-10), SIZES, 0.01, np.random.default_rng(seed))).anomalies == ()


def test_single_values_per_size_still_fit():
    # imported from a tool that prints one number per size: no per-size interval, still a model
    rng = np.random.default_rng(6)
    curve = broken(1.1e-6, 2.8e-10, 2.3e-6, 1.3e-10, 6000)
    sweep = analyze_sweep(points(curve, SIZES, 0.02, rng, known=False))
    assert len(sweep.piecewise.breakpoints) == 1
    assert sweep.piecewise.breakpoints[0].low_bytes < 6000 <= sweep.piecewise.breakpoints[0].high_bytes
    assert any(c.kind == "no_per_size_noise" for c in sweep.caveats)
    assert sweep.characteristics.zero_byte_latency_ci_s is None


def test_characteristics_follow_saphir_definitions():
    curve = broken(1.1e-6, 2.8e-10, 2.3e-6, 1.3e-10, 6000)
    sweep = analyze_sweep(points(curve, SIZES, 0.0, np.random.default_rng(0)))
    ch = sweep.characteristics
    assert ch.zero_byte_size == 0 and ch.zero_byte_latency_s == pytest.approx(1.1e-6)
    assert ch.asymptotic_latency_s == pytest.approx(2.3e-6, rel=1e-6)  # intercept of the last segment
    top = 2**26
    # Saphir's asymptotic bandwidth is measured: size / time of the largest message
    assert ch.asymptotic_bandwidth_bytes_per_s == pytest.approx(top / curve(top))
    assert ch.line_bandwidth.value == pytest.approx(1 / 1.3e-10, rel=1e-6)  # the model's 1/β
    assert ch.peak_bandwidth_size == top
    assert ch.peak_bandwidth_bytes_per_s == pytest.approx(top / curve(top))
    regimes = {r.bytes: r for r in sweep.regimes}
    n_half = sweep.hockney.line.n_half_bytes
    assert all((r.regime == "alpha") == (b <= n_half) for b, r in regimes.items())
    assert regimes[1024].messages_per_s == pytest.approx(1 / curve(1024))
    assert regimes[top].fraction_of_asymptotic == pytest.approx(1.0)
    assert regimes[0].segment == 0 and regimes[top].segment == 1


def test_the_ratio_to_the_asymptotic_bandwidth_is_a_ratio_or_cannot_tell():
    """fit's "÷ asym." column: b/T(b) over the largest size's, as a ratio (a cache peak reads 1.6×,
    not 160 %), and "?" when the largest size's interval is too wide to divide by."""
    from msgperf.present.model_text import asymptote_cell

    def peaked(t_scale_at_top):
        pts = points(line(1e-6, 1e-10), SIZES, 0.002, np.random.default_rng(3))
        top = pts[-1].bytes
        return [p.__class__(**{**msgspec.structs.asdict(p), **{k: getattr(p, k) * t_scale_at_top[0] * f
                                                for k, f in zip(("time_s", "ci_low_s", "ci_high_s"),
                                                                (1, t_scale_at_top[1], t_scale_at_top[2]))}})
                if p.bytes == top else p for p in pts]

    sweep = analyze_sweep(peaked((1.6, 1.0, 1.0)))  # the largest size 1.6x slower than the line
    regimes = {r.bytes: r for r in sweep.regimes}
    top, mid = max(regimes), 1 << 24
    assert regimes[top].fraction_of_asymptotic == pytest.approx(1.0)
    assert regimes[mid].fraction_of_asymptotic > 1.3
    assert asymptote_cell(regimes[top], top) == "1×"
    assert asymptote_cell(regimes[mid], mid) == f"{regimes[mid].fraction_of_asymptotic:.2g}×"
    assert asymptote_cell(regimes[1], 1) == "<0.01×" and asymptote_cell(regimes[0], 0) == "-"

    # the largest size's interval spans [0.5x, 2x] of its median: no ratio, and the reason
    pts = peaked((1.6, 0.5 / (1 + 0.002), 2.0 / (1 + 0.002)))
    wide = analyze_sweep(pts)
    assert wide.characteristics.asymptotic_bandwidth.value is not None
    assert all(r.fraction_of_asymptotic is None for r in wide.regimes)
    assert "spans more than" in wide.regimes[5].asymptote_unknown
    assert asymptote_cell(wide.regimes[5], wide.regimes[5].bytes) == "?"
