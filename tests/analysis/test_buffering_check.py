"""Saphir's buffering relation checked at one size (analysis/buffering.py ``buffering_row``): the
verdict follows the interval of measured / predicted extra time, and a late receive measured
faster than the pre-posted one is said as such, never as a negative fraction of a copy (a real
MPICH run printed "measured/predicted -401×" for it)."""

from __future__ import annotations

import pytest

from msgperf.analysis.buffering import NO_COPY_SEEN, buffering_row

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
    from msgperf.analysis.side_by_side import Difference, PairRow, VariantPair

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
