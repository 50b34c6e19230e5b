"""Saphir's four terms (Saphir 1994), one definition each, limited by the evidence."""

import math
from pathlib import Path

import numpy as np
import pytest

from msgperf.analysis import analyze_series, analyze_sweep
from msgperf.analysis.model.points import SizePoint
from msgperf.records.runfile_read import read_run
from tests.factories import SIZES, broken, line, points
from tests.factories import replace

CURVES = Path(__file__).resolve().parents[2] / "data" / "curves"


def exact(curve, sizes, u=0.005):
    out = []
    for s in sizes:
        y = curve(s)
        out.append(SizePoint(int(s), y, y * (1 - 1.96 * u), y * (1 + 1.96 * u), 1000, 1, u))
    return out


def test_zero_byte_latency_is_the_measured_median_with_its_interval():
    ch = analyze_sweep(exact(line(1e-6, 1e-10), SIZES)).characteristics
    t = ch.zero_byte_latency
    assert (t.value, t.sizes, t.basis) == (1e-6, (0,), "measured")
    assert t.ci == pytest.approx((1e-6 * (1 - 1.96 * 0.005), 1e-6 * (1 + 1.96 * 0.005)))
    later = analyze_sweep(exact(line(1e-6, 1e-10), SIZES[3:])).characteristics.zero_byte_latency
    assert later.sizes == (4,) and "0 B was not measured" in later.note


def test_peak_bandwidth_is_the_largest_measured_rate_with_its_interval():
    # a cache peak at 512 KiB above the large-message rate
    curve = broken(1e-6, 5e-11, -3e-5, 1.2e-10, 600000)
    sweep = analyze_sweep(exact(curve, SIZES))
    t = sweep.characteristics.peak_bandwidth
    rates = {s: s / curve(s) for s in SIZES if s}
    top = max(rates, key=rates.get)
    assert t.sizes == (top,) and t.value == pytest.approx(rates[top])
    lo, hi = t.ci
    assert lo < t.value < hi and hi / lo == pytest.approx((1 + 1.96 * 0.005) / (1 - 1.96 * 0.005))


def test_the_peak_is_chosen_among_the_sizes_measured_in_several_launches():
    """msgperf run measures the answer's sizes again in launches of their own: one launch's median
    at a size beside them (here 30 % faster than the estimate across four launches) is not set
    against those estimates; with one launch everywhere every size competes."""
    from msgperf.analysis.model.regimes import peak_bandwidth

    pts = exact(line(1e-6, 1e-10), SIZES)
    across = {0, 2 ** 20, 2 ** 21, 2 ** 22}
    fast = replace(pts[-1], time_s=pts[-1].time_s * 0.7)
    mixed = [replace(p, launches=4) if p.bytes in across else p for p in pts[:-1]] + [fast]
    t = peak_bandwidth(mixed)
    assert t.sizes == (2 ** 22,) and t.value == pytest.approx(2 ** 22 / (1e-6 + 1e-10 * 2 ** 22))
    assert t.note.endswith("over the sizes measured in several launches")
    # an answer launch that stopped after 1 MiB: 0 B and 1 MiB have four launches, 2 and 4 MiB three
    partial = [replace(p, launches=3) if p.bytes in (2 ** 21, 2 ** 22) else p for p in mixed]
    assert peak_bandwidth(partial).sizes == (2 ** 22,)
    alone = peak_bandwidth(pts[:-1] + [fast])
    assert alone.sizes == (SIZES[-1],) and alone.note.endswith("over the sizes measured")


def test_sizes_measured_again_far_from_the_peak_do_not_choose_it():
    """A --repeat launch cut off after its small sizes: only they were measured in two launches,
    and the peak was chosen among them (363 MB/s beside 7.2 GB/s at 64 MiB)."""
    from msgperf.analysis.model.regimes import peak_bandwidth

    pts = exact(line(1e-6, 1e-10), SIZES)
    small = [replace(p, launches=2) if p.bytes <= 512 else p for p in pts]
    t = peak_bandwidth(small)
    assert t.sizes == (SIZES[-1],) and t.note.endswith("over the sizes measured")


def test_asymptotic_bandwidth_is_size_over_time_of_the_largest_message():
    sweep = analyze_sweep(exact(line(2e-6, 1e-10), SIZES))
    t = sweep.characteristics.asymptotic_bandwidth
    top = SIZES[-1]
    assert t.sizes == (top,) and t.value == pytest.approx(top / (2e-6 + 1e-10 * top))
    assert t.basis == "measured"
    # the model's 1/β is given beside it, and not marked: the largest size is 0.03 % from it
    lb = sweep.characteristics.line_bandwidth
    assert lb.value == pytest.approx(1e10) and not lb.extrapolated


def test_no_asymptotic_bandwidth_when_the_sweep_stops_among_latency_bound_sizes():
    ch = analyze_sweep(exact(line(2e-6, 1e-10), SIZES[:13])).characteristics  # up to 2 KiB
    assert ch.asymptotic_bandwidth.value is None
    assert "latency-bound" in ch.asymptotic_bandwidth.note
    assert ch.asymptotic_bandwidth_bytes_per_s is None


def test_line_bandwidth_above_every_measured_rate_is_marked_extrapolated():
    # the example: 1 B - 1 MiB, the last segment's 1/β = 23 GB/s while b/T at 1 MiB,
    # the highest measured, is 10.8 GB/s (a large intercept: rendezvous set-up)
    alpha2 = 2**20 / 10.8e9 - 2**20 / 23e9
    curve = broken(1e-6, 1e-10, alpha2, 1 / 23e9, 40000)
    ch = analyze_sweep(exact(curve, SIZES[:22])).characteristics  # to 1 MiB
    assert ch.line_bandwidth.value == pytest.approx(23e9, rel=1e-6)
    assert ch.line_bandwidth.extrapolated and "extrapolated" in ch.line_bandwidth.note
    assert ch.peak_bandwidth.value == pytest.approx(10.8e9, rel=1e-6)
    # 1 MiB still spends more time in α than in β·b: the sweep never reached "very large
    # messages", so Saphir's asymptotic bandwidth is not given at all
    assert ch.asymptotic_bandwidth.value is None and "latency-bound" in ch.asymptotic_bandwidth.note


def test_asymptotic_latency_needs_a_large_message_regime():
    curve = broken(1e-6, 1e-10, 3e-6, 1e-10, 20000)
    full = analyze_sweep(exact(curve, SIZES)).characteristics.asymptotic_latency
    assert full.value == pytest.approx(3e-6, rel=1e-6) and full.basis == "fitted"
    lo, hi = full.ci
    assert lo <= 3e-6 * (1 + 1e-9) and hi >= 3e-6 * (1 - 1e-9) and full.sizes[0] == 32768
    # a sweep that ends four sizes after the switch: 32 .. 256 KiB spans a factor 8, enough;
    # three sizes are not
    enough = analyze_sweep(exact(curve, SIZES[:20])).characteristics.asymptotic_latency
    assert enough.value == pytest.approx(3e-6, rel=1e-6) and len(enough.sizes) == 4
    short = analyze_sweep(exact(curve, SIZES[:19])).characteristics
    assert short.asymptotic_latency.value is None
    assert "3 sizes" in short.asymptotic_latency.note
    assert short.line_bandwidth.value is None and short.asymptotic_latency_s is None


def test_negative_intercept_gives_no_asymptotic_latency():
    curve = broken(1e-6, 1e-10, -2e-5, 1.5e-10, 2**22)
    ch = analyze_sweep(exact(curve, SIZES)).characteristics
    assert ch.asymptotic_latency.value is None and "negative intercept" in ch.asymptotic_latency.note


def test_an_intercept_whose_interval_reaches_zero_gives_no_asymptotic_latency():
    """A positive intercept far inside its own interval (the tester's "653 µs [-23.6 µs – 1.33 ms]"
    beside another MPI job) is no latency: "—" and why, as for a negative one."""
    curve = broken(1e-6, 1e-10, 1e-8, 1.5e-10, 2**22)
    scattered = [SizePoint(p.bytes, p.time_s * f, p.ci_low_s * f, p.ci_high_s * f, p.n, p.launches, p.rel_sd)
                 for p, f in zip(exact(curve, SIZES), [0.96, 1.04] * len(SIZES))]
    term = analyze_sweep(scattered).characteristics.asymptotic_latency
    assert term.value is None and "not distinguishable from zero" in term.note
    assert analyze_sweep(exact(broken(1e-6, 1e-10, 3e-5, 1.5e-10, 2**22), SIZES)).characteristics \
        .asymptotic_latency.value == pytest.approx(3e-5, rel=1e-6)


def test_the_negative_intercept_caveat_agrees_with_the_asymptotic_latency():
    """A regime too short to fit gives "—", and no caveat about an intercept value either; a
    long enough one with a negative intercept says so in both places."""
    curve = broken(1e-6, 1e-10, -2e-5, 1.5e-10, 2**22)
    long_enough = analyze_sweep(exact(curve, SIZES))
    assert "negative_intercept" in {c.kind for c in long_enough.caveats}
    three = analyze_sweep(exact(curve, [s for s in SIZES if s <= 2**24]))  # 4, 8, 16 MiB after the switch
    assert "3 sizes" in three.characteristics.asymptotic_latency.note
    assert "negative_intercept" not in {c.kind for c in three.caveats}


def test_every_term_of_a_real_run_rests_on_measured_sizes():
    run = read_run(CURVES / "mpich-default-0-64M.jsonl").run
    sweep = analyze_series(run, "pingpong").sweep
    ch = sweep.characteristics
    measured = {p.bytes for p in sweep.points}
    for term in (ch.zero_byte_latency, ch.asymptotic_latency, ch.peak_bandwidth,
                 ch.asymptotic_bandwidth, ch.line_bandwidth):
        assert term.sizes and set(term.sizes) <= measured
        assert (term.value is None) == (term.ci is None)
    assert ch.zero_byte_latency.sizes == (0,)
    assert ch.asymptotic_bandwidth.sizes == (64 << 20,)
    # the largest sizes run out of caches: a negative intercept, no asymptotic latency
    assert ch.asymptotic_latency.value is None
    assert math.isfinite(ch.peak_bandwidth.value) and ch.peak_bandwidth.value > ch.asymptotic_bandwidth.value


def test_real_short_sweep_line_bandwidth_is_marked():
    ch = analyze_series(read_run(CURVES / "mpich-cell32k-1K-2M.jsonl").run, "pingpong").sweep.characteristics
    assert ch.line_bandwidth.extrapolated
    assert ch.line_bandwidth.ci[0] > ch.peak_bandwidth.ci[1]


def test_single_values_have_no_intervals():
    sweep = analyze_sweep(points(line(1e-6, 1e-10), SIZES, 0.01, np.random.default_rng(0), known=False))
    assert sweep.characteristics.zero_byte_latency.ci is None
    assert sweep.characteristics.peak_bandwidth.ci is None
