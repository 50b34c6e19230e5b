"""Pure analysis over arrays: statistics, model fits, comparisons. No I/O, no printing.

The notebook entry points: ``analyze_series(run)`` for a run file's ``Run``, ``analyze_pairs(bytes,
seconds)`` for plain pairs, ``analyze_sets`` for ``SampleSet``s; each returns a ``SeriesAnalysis``
of frozen dataclasses. ``predict_combining`` and ``estimate_buffering`` answer the what-ifs
of Lawlor's lecture and Saphir 1994. Methods and references: docs/statistics.md.
"""

from msgperf.lazy import lazy_names

# Imported on first use (PEP 562), so that importing one module of the package (a command
# that needs only a constant) does not import every analysis.
_WHERE = {
    "AnalysisError": "msgperf.analysis.inputs",
    "Anomaly": "msgperf.analysis.anomalies",
    "Breakpoint": "msgperf.analysis.piecewise",
    "BufferingEstimate": "msgperf.analysis.buffering",
    "Caveat": "msgperf.analysis.caveats",
    "Characteristics": "msgperf.analysis.regimes",
    "CombiningPrediction": "msgperf.analysis.combining",
    "Drift": "msgperf.analysis.drift",
    "HockneyFit": "msgperf.analysis.hockney",
    "LaunchComparison": "msgperf.analysis.launches",
    "LaunchModel": "msgperf.analysis.series",
    "LaunchSpread": "msgperf.analysis.launches",
    "LaunchVerdict": "msgperf.analysis.launches",
    "LineFit": "msgperf.analysis.hockney",
    "MeasurementAnalysis": "msgperf.analysis.measurement",
    "Modality": "msgperf.analysis.modality",
    "Outliers": "msgperf.analysis.outliers",
    "PiecewiseFit": "msgperf.analysis.piecewise",
    "SampleSet": "msgperf.analysis.inputs",
    "SampleStats": "msgperf.analysis.sample_stats",
    "SeriesAnalysis": "msgperf.analysis.series",
    "SizeAnalysis": "msgperf.analysis.series",
    "SizePoint": "msgperf.analysis.points",
    "SizeRegime": "msgperf.analysis.regimes",
    "SweepAnalysis": "msgperf.analysis.sweep",
    "analyze_measurement": "msgperf.analysis.measurement",
    "analyze_pairs": "msgperf.analysis.series",
    "analyze_series": "msgperf.analysis.series",
    "analyze_sets": "msgperf.analysis.series",
    "analyze_sweep": "msgperf.analysis.sweep",
    "compare_launches": "msgperf.analysis.launches",
    "detect_bimodality": "msgperf.analysis.modality",
    "detect_drift": "msgperf.analysis.drift",
    "effective_bandwidth": "msgperf.analysis.buffering",
    "estimate_buffering": "msgperf.analysis.buffering",
    "find_anomalies": "msgperf.analysis.anomalies",
    "fit_hockney": "msgperf.analysis.hockney",
    "fit_piecewise": "msgperf.analysis.piecewise",
    "flag_outliers": "msgperf.analysis.outliers",
    "median_ci": "msgperf.analysis.sample_stats",
    "median_ci_ranks": "msgperf.analysis.sample_stats",
    "patterns_of": "msgperf.analysis.series",
    "point_from_stats": "msgperf.analysis.points",
    "predict_combining": "msgperf.analysis.combining",
    "sample_stats": "msgperf.analysis.sample_stats",
    "series_of": "msgperf.analysis.series",
}

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


__getattr__ = lazy_names('msgperf.analysis', _WHERE, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
