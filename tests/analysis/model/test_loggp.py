"""LogGP by Netgauge's method: parameters recovered from data the LogGP model generates."""

from __future__ import annotations

import math

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from msgperf.analysis.model.loggp import (LogGPError, LogGPPoint, analyze_loggp, compare_models, fit_line, fit_loggp,
                                    point_from_fields)

SIZES = (0, 64, 1024, 16384, 262144, 1048576)


def synth(L, o_s, o_r, g, G, sizes=SIZES, n=10, noise=0.0, seed=0):
    """The PRTT series the LogGP model predicts (module docstring of analysis/model/loggp.py), with d =
    PRTT(1,0,s) as Netgauge chooses it, optionally with multiplicative noise."""
    rng = np.random.default_rng(seed)

    def jitter(x):
        return x * (1 + noise * rng.standard_normal()) if noise else x

    pts = []
    for s in sizes:
        p1 = 2 * (L + o_s + o_r + G * s)
        d = p1
        pts.append(LogGPPoint(
            bytes=s, prtt_1_0_s=jitter(p1), prtt_n_0_s=jitter(p1 + (n - 1) * (g + G * s)),
            prtt_n_d_s=jitter(p1 + (n - 1) * (d + o_s)), n=n, d_s=d, send_call_s=jitter(o_s),
            recv_call_s=jitter(o_r), round_trip_s=jitter(p1)))
    return pts


TRUE = dict(L=0.8e-6, o_s=0.3e-6, o_r=0.5e-6, g=1.2e-6, G=1 / 5e9)


def test_exact_recovery_from_the_model():
    p = fit_loggp(synth(**TRUE))
    for name, value in TRUE.items():
        assert getattr(p, name) == pytest.approx(value, rel=1e-9, abs=1e-18), name
    assert p.gap_rms_rel < 1e-9 and p.d_too_small == ()
    assert p.half_round_trip_s == pytest.approx(TRUE["L"] + TRUE["o_s"] + TRUE["o_r"])
    assert p.bandwidth_bytes_per_s == pytest.approx(5e9)


@settings(max_examples=60, deadline=None)
@given(L=st.floats(1e-7, 1e-4), o_s=st.floats(1e-8, 1e-5), o_r=st.floats(1e-8, 1e-5),
       g_extra=st.floats(0, 1e-5), bw=st.floats(1e7, 1e11))
def test_recovery_over_the_parameter_space(L, o_s, o_r, g_extra, bw):
    truth = dict(L=L, o_s=o_s, o_r=o_r, g=o_s + g_extra, G=1 / bw)
    p = fit_loggp(synth(**truth))
    for name, value in truth.items():
        assert getattr(p, name) == pytest.approx(value, rel=1e-6, abs=1e-15), name


def test_recovery_with_one_percent_noise():
    p = fit_loggp(synth(**TRUE, noise=0.01, seed=3))
    assert p.G == pytest.approx(TRUE["G"], rel=0.05)
    assert p.o_r == pytest.approx(TRUE["o_r"], rel=0.05)
    assert p.g == pytest.approx(TRUE["g"], rel=0.3)


def test_a_wrong_parameter_is_not_recovered():
    """The test can fail: data from another G give another G."""
    p = fit_loggp(synth(**{**TRUE, "G": 2 * TRUE["G"]}))
    assert p.G != pytest.approx(TRUE["G"], rel=0.1)


def test_one_size_is_not_enough():
    with pytest.raises(LogGPError):
        fit_loggp(synth(**TRUE, sizes=(1024,)))


def test_too_small_a_delay_is_flagged():
    pts = synth(**TRUE)
    small = [msgspec.structs.replace(p, d_s=1e-12) for p in pts]
    assert fit_loggp(small).d_too_small == SIZES


def test_loggp_wins_on_loggp_data_and_hockney_on_a_line_it_cannot_follow():
    pts = synth(**TRUE)
    a = analyze_loggp(pts)
    # LogGP data are a line in s too: both models fit exactly, a tie.
    assert a.comparison.better == "tie" and a.comparison.loggp_rms_log < 1e-9
    # One-way times with twice the per-byte cost of the gap (e.g. a copy on each side): the
    # Hockney line follows them, LogGP's G (from the gap) does not.
    sizes = np.array(SIZES, dtype=float)
    one_way = TRUE["L"] + TRUE["o_s"] + TRUE["o_r"] + 2 * TRUE["G"] * sizes
    c = compare_models(a.params, sizes, one_way)
    assert c.better == "Hockney" and c.hockney_rms_log < 1e-9 < c.loggp_rms_log


def test_weighted_line_is_exact_on_a_line():
    line = fit_line([0, 10, 1000], [1.0, 1.5, 51.0])
    assert line.alpha == pytest.approx(1.0) and line.beta == pytest.approx(0.05)
    assert line.n_half == pytest.approx(20.0)


def test_point_from_record_fields():
    fields = {"prtt_1_0_s": 2e-6, "prtt_n_0_s": 9e-6, "prtt_n_d_s": 2.3e-5, "n": 10, "d_s": 2e-6,
              "send_call_s": 2e-7, "recv_call_s": 7e-7}
    p = point_from_fields(0, fields, 2.1e-6)
    assert p.gap_s == pytest.approx(7e-6 / 9) and p.o_s == pytest.approx(21e-6 / 9 - 2e-6)
    assert p.one_way_s == pytest.approx(1.05e-6)
    assert point_from_fields(0, {**fields, "prtt_n_0_s": None}) is None
    # the command fuzzer (seed 41, input 219299): n = 1 divided by zero in show's LogGP table
    assert point_from_fields(0, {**fields, "n": 1}) is None and point_from_fields(0, {**fields, "n": 2.5}) is None
    assert math.isnan(point_from_fields(0, {k: v for k, v in fields.items() if k != "recv_call_s"}).recv_call_s)


# ---- validity: L, o_s, o_r, g, G >= 0 and o_s + o_r within the one-way time -------------------

LOADED = dict(L=-29.2e-6, o_s=17.2e-6, o_r=19e-6, g=1.2e-6, G=1 / 5e9)  # seen under load


def test_overheads_beyond_the_one_way_time_cannot_be_told():
    p = fit_loggp(synth(**LOADED))
    assert p.L == pytest.approx(LOADED["L"], rel=1e-6)
    for name in ("L", "o_s", "o_r"):
        assert "exceeds the one-way time" in p.reason(name)
    assert p.reason("g") is None and p.reason("G") is None


def test_a_negative_gap_cannot_be_told_and_good_values_pass():
    assert fit_loggp(synth(**TRUE)).cannot_tell == ()
    p = fit_loggp(synth(**{**TRUE, "g": -0.5e-6}))
    assert p.reason("g").startswith("g = ") and "below 0" in p.reason("g")
    assert p.reason("L") is None and p.reason("G") is None


def test_the_loggp_table_says_cannot_tell_not_no_wire():
    from types import SimpleNamespace

    from msgperf.analysis.result import LogGPResult
    from msgperf.present.pattern_tables import loggp as loggp_table

    def text(params: dict) -> str:
        pts = tuple(synth(**params))
        grid = loggp_table(SimpleNamespace(loggp=LogGPResult(pts, analyze_loggp(pts))))
        return repr(vars(grid))

    bad = text(LOADED)
    assert "no wire" not in bad and "cannot tell" in bad and "exceeds the one-way time" in bad
    assert "-29.2" not in bad and "−29.2" not in bad
    good = text(TRUE)
    assert "cannot tell" not in good and "800 ns" in good


def test_advice_does_not_pipeline_by_a_gap_that_cannot_be_told():
    """A negative g is no gap between messages: result.gap (what advise uses) is None then."""
    from types import SimpleNamespace

    from msgperf.analysis.result import LogGPResult, RunResult

    def gap(params: dict):
        pts = tuple(synth(**params))
        return RunResult.gap.fget(SimpleNamespace(loggp=LogGPResult(pts, analyze_loggp(pts))))

    assert gap({**TRUE, "g": -0.5e-6}) is None
    good = gap(TRUE)
    assert good is not None and good.g_s == pytest.approx(TRUE["g"], rel=1e-6)
