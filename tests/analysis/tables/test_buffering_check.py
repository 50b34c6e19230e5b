"""Saphir's buffering relation checked at one size (analysis/tables/buffering.py ``buffering_row``): the
verdict follows the interval of measured / predicted extra time, and a late receive measured
faster than the pre-posted one is said as such, never as a negative fraction of a copy (a real
MPICH run printed "measured/predicted -401×" for it)."""

from __future__ import annotations

import numpy as np
import pytest

from msgperf import units
from msgperf.analysis.result import analyze
from msgperf.analysis.tables.buffering import NO_COPY_SEEN, buffering_row
from msgperf.present.pattern_tables import buffering
from tests.factories import factors, make_run, measurement, replace

COPY_S = 1e-7  # the memcpy median at this size: the predicted extra time
PING_S = 1e-6


@pytest.mark.parametrize("extra, verdict", [
    ((1.0e-7, 0.9e-7, 1.1e-7), "agrees"),
    ((0.2e-7, 0.1e-7, 0.3e-7), "costs less"),
    ((0.1e-7, -0.5e-7, 0.3e-7), "costs less"),  # the interval reaches below 0, but all of it is below half a copy
    ((5e-7, 4e-7, 6e-7), "costs more"),
    ((1e-7, 0.1e-7, 3e-7), "cannot tell"),  # 0.1x to 3x: wider than the band
    ((-5e-7, -5.25e-7, -4.7e-7), NO_COPY_SEEN),  # the real case: late − preposted wholly negative
    ((-0.1e-7, -0.5e-7, 1.5e-7), "cannot tell"),  # 0 to 1.5x: a copy or none
])
def test_the_verdict_follows_the_interval_of_measured_over_predicted(extra, verdict):
    row = buffering_row(4096, COPY_S, PING_S, extra, eager=True)
    assert row.verdict == verdict
    assert row.ratio is None or row.ratio > 0  # never a negative ratio
    assert row.ratio_ci is None or 0 <= row.ratio_ci[0] <= row.ratio_ci[1]


def test_a_late_receive_faster_has_no_ratio_but_keeps_its_measured_difference():
    row = buffering_row(4096, COPY_S, PING_S, (-5e-7, -5.25e-7, -4.7e-7), eager=True)
    assert row.ratio is None and row.ratio_ci is None
    assert row.measured_extra_s == -5e-7 and row.measured_extra_ci_s == (-5.25e-7, -4.7e-7)


def test_above_the_eager_limit_nothing_is_buffered_and_without_the_pair_nothing_is_said():
    assert buffering_row(1 << 20, COPY_S, PING_S, (1e-7, 0.9e-7, 1.1e-7), eager=False).verdict == "not buffered (rendezvous)"
    assert buffering_row(4096, COPY_S, PING_S, None, eager=True).verdict == ""
    assert buffering_row(4096, COPY_S, PING_S, (1e-7, None, None), eager=True).verdict == "cannot tell"


def test_the_unexpected_pair_names_the_sizes_where_the_late_receive_was_faster():
    from msgperf.analysis.tables.side_by_side import Difference, PairRow, VariantPair

    def row(size, low, high, regime="eager"):
        return PairRow(bytes=size, a_s=2e-6, b_s=2e-6 + (low + high) / 2, difference=Difference((low + high) / 2, low, high),
                       ratio=1.0, regime=regime)
    pair = VariantPair("unexpected", "preposted", "late", "per_iteration",
                       (row(64, -5e-7, -4e-7), row(512, -1e-7, 1e-7), row(4096, 1e-7, 2e-7),
                        row(16384, -5e-7, -4e-7, "rendezvous")), 8112)
    assert pair.b_faster_bytes == (64,)  # a rendezvous size is buffered by nobody: not said there


def test_a_buffered_bandwidth_needs_a_positive_extra_time():
    """Review: beside "no copy seen", b_e measured came out above b_n (a negative extra time)."""
    faster = buffering_row(4096, COPY_S, PING_S, (-5e-7, -5.25e-7, -4.7e-7), eager=True)
    assert faster.measured_effective_bytes_per_s is None
    slower = buffering_row(4096, COPY_S, PING_S, (1e-7, 0.9e-7, 1.1e-7), eager=True)
    assert slower.measured_effective_bytes_per_s == pytest.approx(4096 / (PING_S + 1e-7))
    assert slower.measured_effective_bytes_per_s < slower.network_bandwidth_bytes_per_s


# ---- agreement where the data repeat (buffering.agreement) ------------------------------------

def _rows(extras: dict[int, tuple[float, float, float]], eager_up_to: int | None = None):
    # copy time per size = COPY_S x size/4096: an extra of one copy agrees, of 277 copies costs more
    return [buffering_row(s, COPY_S * s / 4096, PING_S, tuple(v * s / 4096 for v in e),
                          None if eager_up_to is None else s <= eager_up_to) for s, e in sorted(extras.items())]


AGREE = (1.0e-7, 0.9e-7, 1.1e-7)
SPIKE = (277e-7, 271e-7, 279e-7)  # the loaded run's "costs more, 277x [271-279x]"


def test_a_verdict_both_neighbours_contradict_is_cannot_tell():
    from msgperf.analysis.tables.buffering import agreement
    rows = agreement(_rows({1024: AGREE, 2048: AGREE, 4096: SPIKE, 8192: AGREE, 16384: AGREE}))
    spike = next(r for r in rows if r.bytes == 4096)
    assert spike.verdict == "cannot tell" and spike.ratio == pytest.approx(277)
    assert spike.why_not == "costs more here, but 2048 B says agrees and 8192 B says agrees: a disturbance at one size"
    assert [r.verdict for r in rows if r.bytes != 4096] == ["agrees"] * 4  # the neighbours keep theirs


def test_verdicts_that_change_once_and_stay_changed_are_kept():
    from msgperf.analysis.tables.buffering import agreement
    rows = agreement(_rows({1024: AGREE, 2048: AGREE, 4096: SPIKE, 8192: SPIKE, 16384: SPIKE}))
    assert [r.verdict for r in rows] == ["agrees"] * 2 + ["costs more"] * 3 and not any(r.why_not for r in rows)


def test_neighbours_are_taken_within_the_regime_and_an_end_has_one():
    from msgperf.analysis.tables.buffering import agreement
    # 16 KiB is sent by rendezvous: the eager sizes' last one, 8 KiB, has 4 KiB as its only neighbour
    rows = agreement(_rows({2048: AGREE, 4096: AGREE, 8192: SPIKE, 16384: AGREE}, eager_up_to=8192))
    assert [r.verdict for r in rows] == ["agrees", "agrees", "cannot tell", "not buffered (rendezvous)"]


def test_a_verdict_another_launch_contradicts_is_cannot_tell():
    from msgperf.analysis.tables.buffering import agreement
    rows = _rows({2048: SPIKE, 4096: SPIKE, 8192: SPIKE})
    kept = agreement(rows, {4096: {0: "costs more", 1: "costs more"}})
    assert [r.verdict for r in kept] == ["costs more"] * 3
    told = agreement(rows, {4096: {0: "costs more", 1: NO_COPY_SEEN}})
    assert told[1].verdict == "cannot tell"
    assert told[1].why_not == "costs more pooled, but launch 1 alone says no copy seen: the launches disagree"


def test_the_run_s_table_says_cannot_tell_for_a_single_spike():
    """End to end: a run whose unexpected receive spikes at one size prints it as cannot tell."""

    import numpy as np

    from msgperf.analysis.result import analyze
    from msgperf.present.pattern_tables import buffering
    from tests.factories import factors, make_run, measurement

    rng = np.random.default_rng(3)
    ms = []
    for s in (1024, 2048, 4096, 8192, 16384):
        copy = s / 1e10
        ms.append(replace(measurement("memcpy", s, copy * factors(60, 0.01, rng), divisor=1), metric="copy"))
        ms.append(measurement("pingpong", s, 2 * (1e-6 + s / 5e9) * factors(60, 0.01, rng)))
        early = 2e-6 + s / 5e9
        late = early + (277 if s == 4096 else 1) * copy
        for variant, t in (("preposted", early), ("late", late)):
            ms.append(replace(measurement("unexpected", s, t * factors(60, 0.005, rng), divisor=1),
                                          variant=variant, metric="per_iteration"))
    result = analyze(make_run(ms))
    verdicts = {r.bytes: r.verdict for r in result.buffering}
    assert verdicts == {1024: "agrees", 2048: "agrees", 4096: "cannot tell", 8192: "agrees", 16384: "agrees"}
    text = buffering(result).text()
    assert "cannot tell (costs more here, but 2048 B says agrees and 8192 B says agrees" in text
    assert "costs more" not in text.replace("cannot tell (costs more here", "")


def test_without_an_unexpected_receive_the_table_is_the_prediction_and_says_so():
    """A run of memcpy and the ping-pong (an allreduce's model patterns) measured no buffered
    bandwidth: the table printed 14 rows of "-" under "measured b_e vs predicted"."""
    rng = np.random.default_rng(3)
    ms = []
    for s in (1024, 4096, 16384):
        ms.append(replace(measurement("memcpy", s, s / 1e10 * factors(60, 0.01, rng), divisor=1), metric="copy"))
        ms.append(measurement("pingpong", s, 2 * (1e-6 + s / 5e9) * factors(60, 0.01, rng)))
    result = analyze(make_run(ms))
    assert result.buffering and all(r.measured_extra_s is None for r in result.buffering)
    table = buffering(result)
    text = table.text() + table.note
    assert "predicted (Saphir 1994)" in table.heading and "measured" not in table.text()
    assert "predicted only: msgperf run --pattern unexpected measures it" in text
    assert " - " not in table.text() and units.mb_per_s(result.buffering[0].predicted_effective_bytes_per_s) in text


def test_with_an_unexpected_receive_the_table_is_the_check_even_where_no_size_gives_a_b_e():
    """The check's table stays where the unexpected receive was measured, whatever its sizes say
    (here: the late receive faster at every size, so no measured b_e anywhere)."""
    rng = np.random.default_rng(5)
    ms = []
    for s in (1024, 4096, 16384):
        ms.append(replace(measurement("memcpy", s, s / 1e10 * factors(60, 0.01, rng), divisor=1), metric="copy"))
        ms.append(measurement("pingpong", s, 2 * (1e-6 + s / 5e9) * factors(60, 0.01, rng)))
        for variant, t in (("preposted", 3e-6), ("late", 2e-6)):
            ms.append(replace(measurement("unexpected", s, t * factors(60, 0.005, rng), divisor=1),
                              variant=variant, metric="per_iteration"))
    result = analyze(make_run(ms))
    assert all(r.measured_effective_bytes_per_s is None and r.measured_extra_s is not None for r in result.buffering)
    assert buffering(result).heading.startswith("buffered bandwidth: measured b_e vs")
