"""Everything about one measurement's samples: statistics, outliers, drift, modality, caveats."""

from __future__ import annotations

import numpy as np

from msgperf.analysis import caveats as cv
from msgperf.analysis.samples.drift import Drift, detect_drift
from msgperf.analysis.samples.inputs import SampleSet, check_set
from msgperf.analysis.samples.modality import Modality, detect_bimodality
from msgperf.analysis.samples.outliers import Outliers, flag_outliers
from msgperf.analysis.samples.sample_stats import SampleStats, sample_stats_sorted
from msgperf.values import Value


class MeasurementAnalysis(Value):
    bytes: int
    launch: int
    stats: SampleStats  # of the per-message times
    outliers: Outliers
    drift: Drift
    modality: Modality
    sample_s: float  # median raw sample (per-message x divisor): what the clock timed
    clock_resolution_s: float | None
    caveats: tuple[cv.Caveat, ...]


def measurement_caveats(sample_set: SampleSet, stats: SampleStats, out: Outliers, drift: Drift,
                        modality: Modality, sample_s: float) -> tuple[cv.Caveat, ...]:
    size, launch = sample_set.bytes, sample_set.launch
    found = []
    if not sample_set.validated:
        found.append(cv.not_validated(size, launch))
    if stats.n == 1:
        found.append(cv.single_value(size, launch))
    elif stats.n < cv.FEW_SAMPLES:
        found.append(cv.few_samples(size, launch, stats.n))
    elif stats.ci_halfwidth_rel > cv.WIDE_INTERVAL:
        found.append(cv.wide_interval(size, launch, stats.ci_halfwidth_rel))
    tick = sample_set.clock_resolution_s
    if tick and sample_s < cv.RESOLUTION_TICKS * tick:
        found.append(cv.near_resolution(size, launch, sample_s, tick))
    if modality.bimodal:
        found.append(cv.bimodal(size, launch, modality.low_mode, modality.high_mode,
                                modality.high_weight))
    if drift.warmup:
        found.append(cv.warmup(size, launch, drift.warmup_shift))
    if drift.trend:
        found.append(cv.trend(size, launch, drift.trend_shift))
    if out.fraction > cv.OUTLIER_FRACTION:
        found.append(cv.outliers(size, launch, out.count, out.fraction))
    return tuple(found)


def analyze_measurement(sample_set: SampleSet, confidence: float = 0.95) -> MeasurementAnalysis:
    """Analyse one sample set (one size, one launch)."""
    check_set(sample_set)
    series = np.asarray(sample_set.per_message_s, dtype=np.float64)
    ordered = np.sort(series)
    stats = sample_stats_sorted(ordered, confidence)
    out = flag_outliers(series, stats.median, stats.mad)
    drift = detect_drift(series)
    modality = detect_bimodality(ordered)
    sample_s = stats.median * sample_set.divisor
    return MeasurementAnalysis(
        bytes=int(sample_set.bytes), launch=sample_set.launch, stats=stats, outliers=out,
        drift=drift, modality=modality, sample_s=sample_s,
        clock_resolution_s=sample_set.clock_resolution_s,
        caveats=measurement_caveats(sample_set, stats, out, drift, modality, sample_s))
