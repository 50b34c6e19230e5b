"""Pure analysis over arrays: statistics, model fits, comparisons. No I/O, no printing.

The notebook entry points: ``analyze_series(run)`` for a run file's ``Run``, ``analyze_pairs(bytes,
seconds)`` for plain pairs, ``analyze_sets`` for ``SampleSet``s; each returns a ``SeriesAnalysis``
of immutable ``Value``s (values.py). ``predict_combining`` and ``estimate_buffering`` answer the what-ifs
of Lawlor's lecture and Saphir 1994. Methods and references: docs/statistics.md.
"""

from msgperf.lazy import lazy_names

# Imported on first use (PEP 562), so that importing one module of the package (a command
# that needs only a constant) does not import every analysis.
_WHERE = {
    "AnalysisError": "msgperf.analysis.samples",
    "Anomaly": "msgperf.analysis.model",
    "Breakpoint": "msgperf.analysis.model",
    "BufferingEstimate": "msgperf.analysis.tables",
    "Caveat": "msgperf.analysis.caveats",
    "Characteristics": "msgperf.analysis.model",
    "CombiningPrediction": "msgperf.analysis.tables",
    "Drift": "msgperf.analysis.samples",
    "HockneyFit": "msgperf.analysis.model",
    "LaunchComparison": "msgperf.analysis.launches",
    "LaunchModel": "msgperf.analysis.model",
    "LaunchSpread": "msgperf.analysis.launches",
    "LaunchVerdict": "msgperf.analysis.launches",
    "LineFit": "msgperf.analysis.model",
    "MeasurementAnalysis": "msgperf.analysis.samples",
    "Modality": "msgperf.analysis.samples",
    "Outliers": "msgperf.analysis.samples",
    "PiecewiseFit": "msgperf.analysis.model",
    "SampleSet": "msgperf.analysis.samples",
    "SampleStats": "msgperf.analysis.samples",
    "SeriesAnalysis": "msgperf.analysis.model",
    "SizeAnalysis": "msgperf.analysis.model",
    "SizePoint": "msgperf.analysis.model",
    "SizeRegime": "msgperf.analysis.model",
    "SweepAnalysis": "msgperf.analysis.model",
    "analyze_measurement": "msgperf.analysis.samples",
    "analyze_pairs": "msgperf.analysis.model",
    "analyze_series": "msgperf.analysis.model",
    "analyze_sets": "msgperf.analysis.model",
    "analyze_sweep": "msgperf.analysis.model",
    "compare_launches": "msgperf.analysis.launches",
    "detect_bimodality": "msgperf.analysis.samples",
    "detect_drift": "msgperf.analysis.samples",
    "effective_bandwidth": "msgperf.analysis.tables",
    "estimate_buffering": "msgperf.analysis.tables",
    "find_anomalies": "msgperf.analysis.model",
    "fit_hockney": "msgperf.analysis.model",
    "fit_piecewise": "msgperf.analysis.model",
    "flag_outliers": "msgperf.analysis.samples",
    "median_ci": "msgperf.analysis.samples",
    "median_ci_ranks": "msgperf.analysis.samples",
    "patterns_of": "msgperf.analysis.model",
    "point_from_stats": "msgperf.analysis.model",
    "predict_combining": "msgperf.analysis.tables",
    "sample_stats": "msgperf.analysis.samples",
    "series_of": "msgperf.analysis.model",
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
