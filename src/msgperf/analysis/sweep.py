"""A sweep over message sizes: the single Hockney line, the piecewise model, anomalies,
per-size regimes, the latency and bandwidth figures, and the caveats of the fit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from msgperf.analysis import caveats as cv
from msgperf.analysis.anomalies import Anomaly, find_anomalies
from msgperf.analysis.hockney import HockneyFit, fit_hockney
from msgperf.analysis.inputs import AnalysisError
from msgperf.analysis.piecewise import MIN_POINTS, PiecewiseFit, fit_piecewise
from msgperf.analysis.points import TOLERANCE, SizePoint, point_arrays
from msgperf.analysis.regimes import (Characteristics, SizeRegime, characteristics, regime_support,
                                      size_regimes)
from msgperf.analysis.scatter import overdispersion


@dataclass(frozen=True)
class SweepAnalysis:
    points: tuple[SizePoint, ...]
    hockney: HockneyFit
    piecewise: PiecewiseFit
    anomalies: tuple[Anomaly, ...]
    regimes: tuple[SizeRegime, ...]
    characteristics: Characteristics
    caveats: tuple[cv.Caveat, ...]
    model_s: tuple[float, ...] = ()  # the piecewise model's time at each point's size

    def model_at(self, size: int) -> float:
        """The model's time at a measured size (what the tables print beside the median)."""
        return self.model_s[[p.bytes for p in self.points].index(size)]


def sweep_caveats(points: Sequence[SizePoint], line: HockneyFit, model: PiecewiseFit,
                  anomalies: Sequence[Anomaly]) -> tuple[cv.Caveat, ...]:
    found = []
    if len(points) < 2 * MIN_POINTS:
        found.append(cv.few_sizes(len(points)))
    if all(p.rel_sd is None for p in points):
        found.append(cv.no_noise_known())
    elif model.phi > cv.SCATTER_PHI:
        found.append(cv.scatter(model.phi))
    if line.rms_rel_residual > cv.LINE_MISFIT:
        found.append(cv.line_misfits(line.rms_rel_residual, len(model.breakpoints)))
    if line.alpha_s <= 0 or line.beta_s_per_byte <= 0:
        found.append(cv.nonpositive(line.alpha_s, line.beta_s_per_byte))
    last = model.segments[-1]
    # Only where the last regime is long enough to have a latency at all: a three-size segment's
    # intercept is "—" in Saphir's table, and a caveat about its value would contradict it.
    if model.breakpoints and last.alpha_s < 0 and not regime_support(points, last):
        found.append(cv.negative_intercept(last.alpha_s))
    if anomalies:
        found.append(cv.anomalies([a.bytes for a in anomalies]))
    return tuple(found)


def analyze_sweep(points: Sequence[SizePoint], tolerance: float = TOLERANCE,
                  confidence: float = 0.95) -> SweepAnalysis:
    """Fit and characterise one sweep: one point per distinct size."""
    pts = tuple(sorted(points, key=lambda p: p.bytes))
    if len({p.bytes for p in pts}) != len(pts):
        raise AnalysisError("each message size must appear once in a sweep")
    if len(pts) < 2:
        raise AnalysisError(f"{len(pts)} message size{'s' if len(pts) != 1 else ''}: fitting "
                            "T(b) = alpha + beta·b needs at least two sizes; measure more sizes")
    if not (0 < tolerance < 1) or not (0 < confidence < 1):
        raise AnalysisError("tolerance and confidence must lie between 0 and 1")
    phi = overdispersion(*point_arrays(pts, tolerance))
    line = fit_hockney(pts, tolerance, confidence, phi)
    model = fit_piecewise(pts, tolerance, confidence)
    anomalies = find_anomalies(pts, model)
    terms = characteristics(pts, model)
    return SweepAnalysis(
        points=pts, hockney=line, piecewise=model, anomalies=anomalies,
        regimes=size_regimes(pts, line, model, terms.asymptotic_bandwidth.value),
        characteristics=terms, caveats=sweep_caveats(pts, line, model, anomalies),
        model_s=tuple(float(model.predict(p.bytes)) for p in pts))
