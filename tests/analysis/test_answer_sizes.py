"""Which sizes msgperf run measures again in launches of their own (analysis/answer_sizes.py)."""

from __future__ import annotations

import math

import pytest

from msgperf.analysis.answer_sizes import answer_sizes

KiB, MiB = 1024, 1024 * 1024


def line(alpha: float, per_byte: float, sizes) -> dict[int, float]:
    return {b: alpha + per_byte * b for b in sizes}


def test_the_smallest_size_and_the_peak_with_the_sizes_beside_it_not_the_largest():
    sweep = line(1e-6, 1e-10, [0, 1, 1 * KiB, 512 * KiB, 1 * MiB, 2 * MiB, 4 * MiB, 64 * MiB])
    sweep[2 * MiB] *= 0.8  # the peak: 2 MiB runs faster than the line
    assert answer_sizes(sweep) == (0, 1 * MiB, 2 * MiB, 4 * MiB)


def test_a_peak_at_the_largest_size_is_measured_again_with_the_one_below():
    # --sizes 1K:64K: the bandwidth still grows at the largest size
    sweep = line(1e-6, 1e-10, [1 * KiB, 2 * KiB, 4 * KiB, 32 * KiB, 64 * KiB])
    assert answer_sizes(sweep) == (1 * KiB, 32 * KiB, 64 * KiB)


@pytest.mark.parametrize("sweep, sizes", [
    ({}, ()),
    ({0: 1e-6}, (0,)),
    ({0: 0.0, 8: math.nan, 16: -1.0}, ()),  # no time to read a bandwidth or a latency from
    ({0: 1e-6, 8: math.inf, 1024: 2e-6}, (0, 1024)),
])
def test_sizes_without_a_usable_time_are_never_chosen(sweep, sizes):
    assert answer_sizes(sweep) == sizes
