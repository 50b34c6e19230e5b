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
    "AnalysisError": "msgperf.analysis.samples.inputs",
    "Anomaly": "msgperf.analysis.model.anomalies",
    "Breakpoint": "msgperf.analysis.model.piecewise",
    "BufferingEstimate": "msgperf.analysis.tables.buffering",
    "Caveat": "msgperf.analysis.caveats",
    "Characteristics": "msgperf.analysis.model.regimes",
    "CombiningPrediction": "msgperf.analysis.tables.combining",
    "Drift": "msgperf.analysis.samples.drift",
    "HockneyFit": "msgperf.analysis.model.hockney",
    "LaunchComparison": "msgperf.analysis.launches.launches",
    "LaunchModel": "msgperf.analysis.model.series",
    "LaunchSpread": "msgperf.analysis.launches.launches",
    "LaunchVerdict": "msgperf.analysis.launches.launches",
    "LineFit": "msgperf.analysis.model.hockney",
    "MeasurementAnalysis": "msgperf.analysis.samples.measurement",
    "Modality": "msgperf.analysis.samples.modality",
    "Outliers": "msgperf.analysis.samples.outliers",
    "PiecewiseFit": "msgperf.analysis.model.piecewise",
    "SampleSet": "msgperf.analysis.samples.inputs",
    "SampleStats": "msgperf.analysis.samples.sample_stats",
    "SeriesAnalysis": "msgperf.analysis.model.series",
    "SizeAnalysis": "msgperf.analysis.model.series",
    "SizePoint": "msgperf.analysis.model.points",
    "SizeRegime": "msgperf.analysis.model.regimes",
    "SweepAnalysis": "msgperf.analysis.model.sweep",
    "analyze_measurement": "msgperf.analysis.samples.measurement",
    "analyze_pairs": "msgperf.analysis.model.series",
    "analyze_series": "msgperf.analysis.model.series",
    "analyze_sets": "msgperf.analysis.model.series",
    "analyze_sweep": "msgperf.analysis.model.sweep",
    "compare_launches": "msgperf.analysis.launches.launches",
    "detect_bimodality": "msgperf.analysis.samples.modality",
    "detect_drift": "msgperf.analysis.samples.drift",
    "effective_bandwidth": "msgperf.analysis.tables.buffering",
    "estimate_buffering": "msgperf.analysis.tables.buffering",
    "find_anomalies": "msgperf.analysis.model.anomalies",
    "fit_hockney": "msgperf.analysis.model.hockney",
    "fit_piecewise": "msgperf.analysis.model.piecewise",
    "flag_outliers": "msgperf.analysis.samples.outliers",
    "median_ci": "msgperf.analysis.samples.sample_stats",
    "median_ci_ranks": "msgperf.analysis.samples.sample_stats",
    "patterns_of": "msgperf.analysis.model.series",
    "point_from_stats": "msgperf.analysis.model.points",
    "predict_combining": "msgperf.analysis.tables.combining",
    "sample_stats": "msgperf.analysis.samples.sample_stats",
    "series_of": "msgperf.analysis.model.series",
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
