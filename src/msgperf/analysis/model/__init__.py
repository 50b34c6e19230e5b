"""Model: time against size: the points a model is fitted to, the Hockney line and the piecewise
fit, where inside its interval a switch lies, what each switch is (labels), the regimes and their
dominant term, a series' analysis across launches, and LogGP.

The face: what other rooms and msgperf's other packages may use (tests/analysis/test_rooms.py)."""

from msgperf.analysis.model.anomalies import Anomaly, find_anomalies
from msgperf.analysis.model.breakpoint_labels import (CAPACITY, EAGER, FLOOR, SINGLE_COPY, UNEXPLAINED,
                                                      BreakpointEvidence, BreakpointLabel, KnownThreshold,
                                                      known_thresholds,
                                                      label_breakpoints)
from msgperf.analysis.model.hockney import HockneyFit, LineFit, fit_hockney
from msgperf.analysis.model.loggp import LogGPAnalysis, LogGPError, LogGPPoint, analyze_loggp, points_from_rows
from msgperf.analysis.model.mpit_thresholds import probe_contradiction, reported_thresholds
from msgperf.analysis.model.piecewise import Breakpoint, PiecewiseFit, fit_piecewise
from msgperf.analysis.model.points import SizePoint, point_from_stats
from msgperf.analysis.model.regimes import Characteristics, SizeRegime, Term, dominant_term
from msgperf.analysis.model.series import (LaunchModel, SeriesAnalysis, SizeAnalysis, analyze_pairs, analyze_series,
                                           analyze_sets, patterns_of, series_of)
from msgperf.analysis.model.sweep import SweepAnalysis, analyze_sweep
from msgperf.analysis.model.switch_location import SIDE
from msgperf.analysis.model.tolerance import TOLERANCE

__all__ = [
    "Anomaly", "Breakpoint", "BreakpointEvidence", "BreakpointLabel", "CAPACITY", "Characteristics", "EAGER",
    "FLOOR", "HockneyFit", "KnownThreshold", "LaunchModel", "LineFit", "LogGPAnalysis", "LogGPError", "LogGPPoint", "PiecewiseFit",
    "SIDE", "SINGLE_COPY", "SeriesAnalysis", "SizeAnalysis", "SizePoint", "SizeRegime", "SweepAnalysis",
    "TOLERANCE", "Term", "UNEXPLAINED", "analyze_loggp", "analyze_pairs", "analyze_series", "analyze_sets",
    "analyze_sweep", "dominant_term", "find_anomalies", "fit_hockney", "fit_piecewise", "known_thresholds",
    "label_breakpoints", "patterns_of", "point_from_stats", "points_from_rows", "probe_contradiction", "reported_thresholds", "series_of",
]
