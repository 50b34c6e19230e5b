"""Pure analysis over arrays: statistics, model fits, comparisons. No I/O, no printing.

The notebook entry points: ``analyze_series(run)`` for a run file's ``Run``, ``analyze_pairs(bytes,
seconds)`` for plain pairs, ``analyze_sets`` for ``SampleSet``s; each returns a ``SeriesAnalysis``
of frozen dataclasses. ``predict_combining`` and ``estimate_buffering`` answer the what-ifs
of Lawlor's lecture and Saphir 1994. Methods and references: docs/statistics.md.
"""

from msgperf.analysis.anomalies import Anomaly, find_anomalies
from msgperf.analysis.buffering import BufferingEstimate, effective_bandwidth, estimate_buffering
from msgperf.analysis.caveats import Caveat
from msgperf.analysis.combining import CombiningPrediction, predict_combining
from msgperf.analysis.drift import Drift, detect_drift
from msgperf.analysis.hockney import HockneyFit, LineFit, fit_hockney
from msgperf.analysis.inputs import AnalysisError, SampleSet
from msgperf.analysis.launches import LaunchComparison, LaunchSpread, LaunchVerdict, compare_launches
from msgperf.analysis.measurement import MeasurementAnalysis, analyze_measurement
from msgperf.analysis.modality import Modality, detect_bimodality
from msgperf.analysis.outliers import Outliers, flag_outliers
from msgperf.analysis.piecewise import Breakpoint, PiecewiseFit, fit_piecewise
from msgperf.analysis.points import SizePoint, point_from_stats
from msgperf.analysis.regimes import Characteristics, SizeRegime
from msgperf.analysis.series import (LaunchModel, SeriesAnalysis, SizeAnalysis, analyze_pairs,
                                  analyze_series, analyze_sets, patterns_of, series_of)
from msgperf.analysis.sample_stats import SampleStats, median_ci, median_ci_ranks, sample_stats
from msgperf.analysis.sweep import SweepAnalysis, analyze_sweep

__all__ = [
    "AnalysisError", "Anomaly", "Breakpoint", "BufferingEstimate", "Caveat", "Characteristics",
    "CombiningPrediction", "Drift", "HockneyFit", "LaunchComparison", "LaunchModel",
    "LaunchSpread", "LaunchVerdict", "LineFit", "MeasurementAnalysis", "Modality", "Outliers",
    "PiecewiseFit", "SeriesAnalysis", "SampleSet", "SizeAnalysis", "SizePoint", "SizeRegime",
    "SampleStats", "SweepAnalysis", "analyze_measurement", "analyze_pairs",
    "analyze_series", "analyze_sets", "analyze_sweep", "compare_launches", "detect_bimodality",
    "detect_drift", "effective_bandwidth", "estimate_buffering", "find_anomalies",
    "fit_hockney", "fit_piecewise", "flag_outliers", "median_ci", "median_ci_ranks",
    "patterns_of", "point_from_stats", "predict_combining", "series_of", "sample_stats",
]
