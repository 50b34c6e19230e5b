"""The merged summary's figures as text: median [smallest – largest], the value alone where the
runs agree to the digits shown, "-" where no run could tell."""

from __future__ import annotations

import math

from msgperf import units
from msgperf.analysis.advice.profile_runs import spread
from msgperf.present.profile_summary import spread_text


def test_a_spread_reads_median_then_range():
    assert spread_text(spread([0.002, 0.001, 0.003])) == "2 ms [1 ms – 3 ms]"
    assert spread_text(spread([0.125, 0.12500000001])) == "125 ms"  # alike to the digits shown
    assert spread_text(spread([0.5])) == "500 ms"
    assert spread_text(spread([math.nan, math.nan])) == "-"
    assert spread_text(spread([0.25, 0.5, math.nan]), units.percent) == "37.5 % [25.0 % – 50.0 %]"
