"""Samples: one measurement's statistics: its median and the median's interval, outliers,
drift, two modes, the spread across rank pairs; the input types and their checks.

The face: what other rooms and msgperf's other packages may use. Modules inside the room import
each other directly; nothing outside imports past this file (tests/analysis/test_rooms.py)."""

from msgperf.analysis.samples.distributions import stats
from msgperf.analysis.samples.drift import Drift, detect_drift
from msgperf.analysis.samples.inputs import AnalysisError, SampleSet, check_set, check_times
from msgperf.analysis.samples.measurement import MeasurementAnalysis, analyze_measurement
from msgperf.analysis.samples.modality import Modality, detect_bimodality
from msgperf.analysis.samples.outliers import THRESHOLD, Outliers, flag_outliers, modified_z
from msgperf.analysis.samples.pair_spread import PairSpread, pair_spreads
from msgperf.analysis.samples.sample_stats import SampleStats, median_ci, median_ci_ranks, sample_stats

__all__ = [
    "AnalysisError", "Drift", "MeasurementAnalysis", "Modality", "Outliers", "PairSpread", "SampleSet",
    "SampleStats", "THRESHOLD", "analyze_measurement", "check_set", "check_times", "detect_bimodality",
    "detect_drift", "flag_outliers", "median_ci", "median_ci_ranks", "modified_z", "pair_spreads", "sample_stats",
    "stats",
]
