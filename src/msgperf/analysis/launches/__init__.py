"""Launches: the launch as the unit of variation: a quantity's interval across launches, which
launches measured and which were disturbed, whether launches agree, the noise floor of a
configuration, and the machine's conditions during a launch.

The face: what other rooms and msgperf's other packages may use (tests/analysis/test_rooms.py)."""

from msgperf.analysis.launches.across_launches import (Interval, interval_of_launches, interval_within_launch,
                                                       log_se_from_interval, parameter_across_launches)
from msgperf.analysis.launches.conditions import (LaunchConditions, caveats_of, crowded_launches, first_disturbance,
                                                 quiet_launches, run_conditions)
from msgperf.analysis.launches.launch_alignment import align, disturbed_launches, measuring_launches
from msgperf.analysis.launches.launches import LaunchComparison, LaunchSpread, LaunchVerdict, compare_launches
from msgperf.analysis.launches.noise_floor import (NoiseFloor, VarianceTerm, configuration, launch_medians,
                                                   noise_floor, satterthwaite)

__all__ = [
    "Interval", "LaunchComparison", "LaunchConditions", "LaunchSpread", "LaunchVerdict", "NoiseFloor",
    "VarianceTerm", "align", "caveats_of", "crowded_launches", "first_disturbance", "compare_launches", "configuration", "disturbed_launches",
    "interval_of_launches", "interval_within_launch", "launch_medians", "log_se_from_interval",
    "measuring_launches", "noise_floor", "parameter_across_launches", "quiet_launches", "run_conditions", "satterthwaite",
]
